"""The live routes under test: the real app in-process, the sandbox upstream over real HTTP.

``api_caller`` (tests/fixtures/api.py) is an organization with an admin key and one connected
sandbox account, calling the API whose ``upstream_url`` is the sandbox. Our clock is pinned to
the sandbox's (frozen at its epoch), so the default date windows both sides compute agree.
"""

from __future__ import annotations

import pytest

from app.settings import Settings
from tests.fixtures.api import on_sandbox


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    """The API against the sandbox; quick retries so fault tests stay short."""
    return on_sandbox(settings, sandbox, upstream_max_attempts=2)


@pytest.fixture(autouse=True)
def _sandbox_world(api_clock_on_sandbox, sandbox_reset) -> None:
    """Our clock is the sandbox's; faults, rejected credentials and read marks never leak
    into the next test."""
