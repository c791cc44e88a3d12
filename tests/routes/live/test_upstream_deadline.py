"""A live read has one deadline across all its attempts; an open breaker answers at once."""

from __future__ import annotations

import time

import pytest

from app.settings import Settings
from tests.fixtures.api import error_of, on_sandbox


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    # Without the deadline, 3 attempts of a 2 s read timeout would take over 6 s.
    return on_sandbox(settings, sandbox, upstream_read_timeout=2.0, upstream_max_attempts=3,
                      upstream_live_deadline=1.0, upstream_breaker_failures=2, upstream_breaker_reset=30.0)


def test_a_hung_upstream_is_a_424_upstream_timeout_at_the_deadline(api_caller, sandbox):
    sandbox.add_fault("timeout", count=10, seconds=30.0, account_id=api_caller.account_id)
    started = time.monotonic()
    response = api_caller.get("/v1/{account}/chats")
    elapsed = time.monotonic() - started
    assert "did not answer within 1 s" in error_of(response, 424, credits=1)
    assert response.json()["code"] == "upstream_timeout"
    assert 1.0 <= elapsed < 3.0


def test_an_open_breaker_answers_424_at_once_with_retry_after(api_caller, sandbox):
    sandbox.add_fault("status", count=100, status=503, account_id=api_caller.account_id)
    for _ in range(2):  # two failed calls open the account's breaker
        assert api_caller.get("/v1/{account}/chats").json()["code"] == "upstream_unavailable"
    asked = sandbox.stats().get("requests", 0)

    response = api_caller.get("/v1/{account}/chats")
    assert "circuit open" in error_of(response, 424, credits=1)
    assert response.json()["code"] == "upstream_circuit_open"
    assert 1 <= int(response.headers["retry-after"]) <= 30
    assert sandbox.stats().get("requests", 0) == asked  # refused without asking the upstream
