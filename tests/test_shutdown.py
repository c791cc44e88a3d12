"""SIGTERM to relay serve: requests in flight finish, new connections are refused, and the
wait is bounded by RELAY_API_SHUTDOWN_TIMEOUT."""

from __future__ import annotations

import signal
import threading
import time

import httpx
import pytest

from tests.fixtures.api import auth
from tests.fixtures.net import refuses_connections, wait_for

ACCOUNT_ID = 5151


@pytest.fixture
def caller(db, make_org, make_key, connect_account, sandbox_reset) -> str:
    org_id = make_org(credits=1000)
    connect_account(org_id, ACCOUNT_ID)
    return make_key(org_id)


def _get_in_thread(url: str, key: str) -> tuple[threading.Thread, dict]:
    answer: dict = {}

    def run() -> None:
        try:
            answer["response"] = httpx.get(url, headers=auth(key), timeout=30)
        except httpx.HTTPError as exc:
            answer["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, answer


def _wait_until_the_upstream_has_it(sandbox) -> None:
    """The request in flight has reached the sandbox, which holds it (a latency fault)."""
    wait_for(lambda: sandbox.requests(ACCOUNT_ID)["requests"], 30, "the request to reach the upstream", every=0.02)


def test_sigterm_lets_the_request_in_flight_finish_and_refuses_new_ones(api_process, sandbox, caller):
    api = api_process(RELAY_UPSTREAM_URL=sandbox.url, RELAY_API_WORKERS="1")
    sandbox.add_fault("latency", count=1, ms=2000, account_id=ACCOUNT_ID)
    thread, answer = _get_in_thread(f"{api.url}/v1/{ACCOUNT_ID}/chats", caller)
    _wait_until_the_upstream_has_it(sandbox)

    api.process.send_signal(signal.SIGTERM)
    wait_for(lambda: refuses_connections(f"{api.url}/health"), 5, "relay serve to stop accepting connections")
    assert thread.is_alive()  # refused while the request in flight still waits on the upstream

    thread.join(timeout=30)
    assert answer["response"].status_code == 200, answer
    assert "list" in answer["response"].json()["data"]
    # uvicorn re-raises the signal once shut down, so the exit says "terminated by SIGTERM".
    assert api.process.wait(timeout=15) in (0, -signal.SIGTERM)


def test_a_request_longer_than_the_shutdown_timeout_does_not_hold_the_exit(api_process, sandbox, caller):
    api = api_process(
        RELAY_UPSTREAM_URL=sandbox.url, RELAY_API_WORKERS="1", RELAY_API_SHUTDOWN_TIMEOUT="1"
    )
    sandbox.add_fault("latency", count=1, ms=20_000, account_id=ACCOUNT_ID)
    thread, answer = _get_in_thread(f"{api.url}/v1/{ACCOUNT_ID}/chats", caller)
    _wait_until_the_upstream_has_it(sandbox)

    started = time.monotonic()
    api.process.send_signal(signal.SIGTERM)
    api.process.wait(timeout=15)
    assert time.monotonic() - started < 10  # not the 20 s the upstream would take
    thread.join(timeout=30)
    assert "response" not in answer or answer["response"].status_code != 200
