"""Fixtures of the sync tests: settings aimed at the sandbox, accounts in both worlds."""

from __future__ import annotations

import pytest

from app.settings import Settings
from tests.fixtures.sandbox import fresh_account_id
from tests.sync.helpers import add_account


@pytest.fixture
def sync_settings(settings: Settings, sandbox) -> Settings:
    """Workers aimed at the sandbox, reading its clock, with quick polls and retries."""
    sandbox.reset()
    return settings.replace(
        upstream_url=sandbox.url,
        sync_clock="sandbox",
        sync_poll_seconds=0.1,
        sync_tick_seconds=1.0,
        sync_lease_seconds=10,
        sync_retry_max_seconds=0.5,
        backfill_requests_per_second=0,
        upstream_backoff_base=0.01,
        upstream_backoff_max=0.1,
        log_level="WARNING",
    )


@pytest.fixture
def new_account(db, sandbox):
    """A factory: ``new_account(**sandbox_sizes)`` -> a fresh account id known to both the
    store (organization + active account) and the sandbox (sized as asked)."""

    def make(**sizes) -> int:
        account_id = fresh_account_id()
        add_account(db, account_id)
        if sizes:
            sandbox.configure_account(account_id, **sizes)
        return account_id

    return make
