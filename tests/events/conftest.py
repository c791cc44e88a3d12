"""Fixtures of the event tests: the sync fixtures (sandbox-aimed settings, accounts)."""

from __future__ import annotations

from tests.sync.conftest import new_account, sync_settings  # noqa: F401 - fixtures reused
