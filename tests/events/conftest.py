"""Fixtures of the event tests: the sync fixtures (sandbox-aimed settings, accounts) and a
real webhook receiver."""

from __future__ import annotations

import pytest

from tests.events.receiver import Receiver
from tests.sync.conftest import new_account, sync_settings  # noqa: F401 - fixtures reused


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()
