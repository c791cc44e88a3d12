"""Parameters at the edges of their types, through the real app, database and sandbox.

``api_caller`` (tests/fixtures/api.py) is an organization with an admin key, generous credits
and rate limits, and one connected sandbox account; its client is the in-process app whose
upstream is the sandbox.
"""

from __future__ import annotations

import pytest

from app.settings import Settings
from tests.fixtures.api import on_sandbox


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return on_sandbox(settings, sandbox)
