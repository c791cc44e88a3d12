"""Fixtures of the export tests: the sync fixtures (sandbox-aimed settings, accounts)."""

from tests.sync.conftest import new_account, sync_settings  # noqa: F401 - fixtures reused
