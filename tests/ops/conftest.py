"""The sync fixtures (settings aimed at the sandbox) serve the status page tests too."""

from tests.sync.conftest import new_account, sync_settings  # noqa: F401  (fixtures)
