"""Store-served routes under test: the real app in-process, the store filled from the sandbox.

``api_caller`` (tests/fixtures/api.py) is an organization with an admin key and one connected
sandbox account, calling the API whose upstream is the sandbox; tests/fixtures/store.py fills
its store. Our clock is pinned to the sandbox's frozen clock, so default windows agree on both
sides.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from app.settings import Settings
from tests.fixtures.api import on_sandbox
from tests.fixtures.store import AccountStore, forget_cached_coverage


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return on_sandbox(settings, sandbox)


@pytest.fixture(autouse=True)
def _sandbox_world(api_clock_on_sandbox, sandbox_reset) -> None:
    """Our clock is the sandbox's; faults, rejected credentials and read marks never leak
    into the next test."""


@pytest.fixture(autouse=True)
def _fresh_coverage_cache() -> None:
    """Each test sees the coverage it just wrote, not one a process read earlier."""
    forget_cached_coverage()


@pytest.fixture
def stored_org(db, sandbox, make_org, make_key, connect_account) -> Callable[..., str]:
    """``stored_org(account_id, **sandbox_sizes)`` -> the admin key of a new organization with
    a generous plan whose account has its whole history in the store, covered up to a day
    from now (an API process reads the machine's clock, not the sandbox's)."""

    def make(account_id: int, **sizes) -> str:
        org_id = make_org(credits=1_000_000, limit_minute=1_000_000, limit_day=1_000_000)
        connect_account(org_id, account_id)
        sandbox.configure_account(account_id, **sizes)
        store = AccountStore(db, sandbox, account_id)
        store.fill_earnings()
        store.cover("earnings", 0, int(time.time()) + 86_400)
        return make_key(org_id)

    return make
