"""``api_caller`` on the sandbox, whose store tests/fixtures/store.py fills: answers served
from the store and from the upstream."""

import pytest

from app.settings import Settings
from tests.fixtures.api import on_sandbox


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return on_sandbox(settings, sandbox)
