"""A live read has one deadline across all its attempts; an open breaker answers at once."""

from __future__ import annotations

import time

import pytest

from app.settings import Settings
from tests.routes.live.conftest import error_message


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    # Without the deadline, 3 attempts of a 2 s read timeout would take over 6 s.
    return settings.replace(
        upstream_url=sandbox.url,
        upstream_read_timeout=2.0,
        upstream_max_attempts=3,
        upstream_backoff_base=0.01,
        upstream_backoff_max=0.02,
        upstream_live_deadline=1.0,
        upstream_breaker_failures=2,
        upstream_breaker_reset=30.0,
    )


def test_a_hung_upstream_is_a_424_upstream_timeout_at_the_deadline(live_api, sandbox):
    sandbox.add_fault("timeout", count=10, seconds=30.0, account_id=live_api.account_id)
    started = time.monotonic()
    response = live_api.get("/v1/{account}/chats")
    elapsed = time.monotonic() - started
    assert "did not answer within 1 s" in error_message(response, 424)
    assert response.json()["code"] == "upstream_timeout"
    assert 1.0 <= elapsed < 3.0


def test_an_open_breaker_answers_424_at_once_with_retry_after(live_api, sandbox):
    sandbox.add_fault("status", count=100, status=503, account_id=live_api.account_id)
    for _ in range(2):  # two failed calls open the account's breaker
        assert live_api.get("/v1/{account}/chats").json()["code"] == "upstream_unavailable"
    asked = sandbox.stats().get("requests", 0)

    response = live_api.get("/v1/{account}/chats")
    assert "circuit open" in error_message(response, 424)
    assert response.json()["code"] == "upstream_circuit_open"
    assert 1 <= int(response.headers["retry-after"]) <= 30
    assert sandbox.stats().get("requests", 0) == asked  # refused without asking the upstream
