"""Fixtures of the event tests: the sync fixtures (sandbox-aimed settings, accounts) and a
real webhook receiver."""

from __future__ import annotations

import pytest

from app.settings import Settings
from tests.events.receiver import Receiver
from tests.sync.conftest import new_account  # noqa: F401 - fixture reused
from tests.sync.conftest import sync_settings as sandbox_settings  # noqa: F401 - fixture reused


@pytest.fixture
def sync_settings(sandbox_settings: Settings) -> Settings:  # noqa: F811
    """The sync tests' settings, with deliveries to private addresses allowed: the receivers
    listen on 127.0.0.1."""
    return sandbox_settings.replace(webhook_allow_private_addresses=True)


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()
