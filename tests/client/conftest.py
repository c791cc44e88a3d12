"""The generated client imported in place (``clients/python/``, as committed: the tests drive
what users get); ``api_caller`` on the sandbox, whose store tests/fixtures/store.py fills;
``relay serve`` (``running.py``)."""

import sys
from pathlib import Path

import pytest

from app.settings import Settings
from tests.client.running import relay  # noqa: F401
from tests.fixtures.api import on_sandbox

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return on_sandbox(settings, sandbox)
