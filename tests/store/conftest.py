"""Store-served routes under test: the real app in-process, the store filled from the sandbox.

``api_caller`` (tests/fixtures/api.py) is an organization with an admin key and one connected
sandbox account, calling the API whose upstream is the sandbox; tests/fixtures/store.py fills
its store. Our clock is pinned to the sandbox's frozen clock, so default windows agree on both
sides.
"""

from __future__ import annotations

import pytest

from app.settings import Settings
from tests.fixtures.api import on_sandbox
from tests.fixtures.store import forget_cached_coverage


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
