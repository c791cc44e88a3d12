"""Nothing is charged for our failures: a request answered 5xx (503 included) or cut by
its client is on the ledger, with its status, but debits no credit and counts in no window.

Each test reads the database afterwards: the ledger rows (status, credits, debited), the
balance and the windows as the gate counts them now (a window that has ended counts 0).
"""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from litestar.testing import TestClient

from app.admin import service as admin
from tests.fixtures.api import ApiProcess, auth, settle_ledger, usage, windows_and_balance
from tests.fixtures.net import clear_of_utc_midnight, free_port, wait_for
from tests.gate.probe import CALLS, GO_ON, probe_app
from tests.gate.test_keeper import wait_for_listener
from tests.ops.test_metrics import samples
from tests.test_database_outage import own_postgres, stop_postgres  # noqa: F401 - a fixture

ACCOUNT = 42
DATABASE_UNAVAILABLE = {"error": "database unavailable; try again shortly", "code": "database_unavailable"}


@pytest.fixture
def org(make_org, connect_account):
    org_id = make_org(credits=10)
    connect_account(org_id, ACCOUNT)
    return org_id


# --- 500 and 503 -----------------------------------------------------------------------------


def test_a_503_while_every_pool_connection_is_taken_is_recorded_for_nothing(api_settings, db, org, make_key):
    # What an organization holding the pool (unread exports) did to everyone else's requests.
    settings = api_settings.replace(db_pool_min=1, db_pool_max=2, db_wait_timeout=0.3)
    with TestClient(probe_app(settings), raise_server_exceptions=False) as client:
        pool = client.app.state.pool
        held = [client.blocking_portal.call(pool.getconn) for _ in range(2)]
        try:
            response = client.get(f"/v1/{ACCOUNT}/probe/database", headers=auth(make_key(org)))
        finally:
            for conn in held:
                client.blocking_portal.call(pool.putconn, conn)
        settle_ledger(client)

    assert response.status_code == 503 and response.json() == DATABASE_UNAVAILABLE
    assert response.headers["x-credits-used"] == "0"
    assert usage(db, org).ledger == [(503, 0, False)]
    assert windows_and_balance(db, org) == (0, 0, 10)


def test_a_503_from_a_database_outage_mid_request_is_recorded_for_nothing(own_postgres, api_settings, keyring):  # noqa: F811
    server, url = own_postgres
    with psycopg.connect(url, autocommit=True) as conn:
        org_id = admin.create_organization(conn, "outage", credits=10)
        key = admin.create_key(conn, org_id, "admin").secret
        admin.connect_account(conn, org_id, ACCOUNT, "sandbox-42", keyring=keyring)
    CALLS.clear()
    GO_ON.clear()  # the handler waits, admitted and counted, until the database is down
    try:
        settings = api_settings.replace(database_url=url, db_wait_timeout=0.5)
        with TestClient(probe_app(settings), raise_server_exceptions=False) as client:
            with ThreadPoolExecutor(1) as request:
                answer = request.submit(client.get, f"/v1/{ACCOUNT}/probe/database", headers=auth(key))
                wait_for(lambda: "database" in CALLS, 15, "the handler to reach the database", every=0.05)
                stop_postgres(server)
                GO_ON.set()
                response = answer.result(timeout=30)
            server.ensure_postgres_running()
            with psycopg.connect(url, autocommit=True) as conn:
                # The writer's connection died with the server: its row waits for a new one.
                wait_for(lambda: settle_ledger(client) or usage(conn, org_id).ledger, 15, "the ledger row", every=0.05)
                assert usage(conn, org_id).ledger == [(503, 0, False)]
                assert windows_and_balance(conn, org_id) == (0, 0, 10)
    finally:
        GO_ON.set()
    assert response.status_code == 503 and response.json() == DATABASE_UNAVAILABLE


def test_failures_among_a_busy_keys_requests_keep_the_books_balanced(probe_client, db, make_org, make_key, connect_account):
    clear_of_utc_midnight()
    org_id = make_org(credits=10_000, limit_minute=100_000, limit_day=100_000)
    connect_account(org_id, ACCOUNT)
    key = make_key(org_id)
    wait_for_listener(probe_client)

    paths = [f"/v1/{ACCOUNT}/probe/boom" if i % 4 == 0 else f"/v1/{ACCOUNT}/probe" for i in range(200)]
    statuses = [probe_client.get(path, headers=auth(key)).status_code for path in paths]

    assert statuses.count(500) == 50 and statuses.count(200) == 150
    assert probe_client.app.state.gate.gatekeeper.admitted_locally > 100  # most from an allowance
    settle_ledger(probe_client)
    ledger = usage(db, org_id).ledger
    assert sorted(ledger) == sorted([(500, 0, False)] * 50 + [(200, 1, True)] * 150)
    # The invariants of docs/api-decisions.md ("Credits and 402"): the day counts the rows
    # with a credit, the minute the rows below 499, the balance the debited rows.
    minute, day, balance = windows_and_balance(db, org_id)
    assert day == 150 and balance == 10_000 - 150
    minutes = db.execute(
        "SELECT count(DISTINCT date_trunc('minute', created_at)) FROM usage_ledger WHERE organization_id = %s",
        (org_id,),
    ).fetchone()[0]
    if minutes == 1:  # no minute turned while the test ran
        assert minute == 150


# --- requests cut by their client -------------------------------------------------------


@dataclass
class Served:
    api: ApiProcess
    metrics_url: str
    log: Path
    key: str


@pytest.fixture
def served(api_process, sandbox_reset, db, org, make_key, tmp_path) -> Served:
    """A ``relay serve`` process against the sandbox, logging at INFO to a file, with its metrics."""
    metrics_port = free_port()
    log = tmp_path / "api.log"
    api = api_process(
        log_to=log, RELAY_UPSTREAM_URL=sandbox_reset.url, RELAY_LOG_LEVEL="INFO",
        RELAY_API_METRICS_PORT=str(metrics_port),
    )
    return Served(api, f"http://127.0.0.1:{metrics_port}/metrics", log, make_key(org))


def _send_and_leave(url: str, request: bytes) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as conn:
        conn.sendall(request)
    # closed: the client is gone


def _statuses(metrics_url: str) -> set[str]:
    return {
        dict(labels)["status"] for (name, labels), value in samples(metrics_url).items()
        if name == "relay_http_requests_total" and dict(labels)["route"] != "/health" and value
    }


def _assert_cut_and_free(db, org_id: int, served: Served) -> None:
    assert wait_for(lambda: usage(db, org_id).ledger, 15, "the ledger row", every=0.05) == [(499, 0, False)]
    wait_for(lambda: windows_and_balance(db, org_id) == (0, 0, 10), 15, "no window count and the balance back", every=0.05)
    assert _statuses(served.metrics_url) == {"499"}
    wait_for(lambda: "client_closed" in served.log.read_text(), 15, "client_closed in the log", every=0.05)
    logged = served.log.read_text()
    assert "status=499" in logged
    assert "unhandled_error" not in logged and "Traceback" not in logged and "status=500" not in logged


def test_a_client_that_leaves_mid_body_is_recorded_as_cut_for_nothing(served, db, org):
    head = (
        f"POST /v1/{ACCOUNT}/notifications/message/read HTTP/1.1\r\nHost: relay\r\n"
        f"Authorization: Bearer {served.key}\r\nContent-Length: 1000\r\n\r\n"
    )
    _send_and_leave(served.api.url, head.encode() + b"0123456789")  # 10 of the 1,000 bytes

    _assert_cut_and_free(db, org, served)


def test_a_client_that_leaves_before_a_slow_answer_is_recorded_as_cut_for_nothing(served, sandbox_reset, db, org):
    sandbox_reset.add_fault("latency", ms=1500, account_id=ACCOUNT)
    before = sandbox_reset.requests(ACCOUNT)
    request = (
        f"GET /v1/{ACCOUNT}/vault/media/processing HTTP/1.1\r\nHost: relay\r\n"
        f"Authorization: Bearer {served.key}\r\n\r\n"
    )
    _send_and_leave(served.api.url, request.encode())

    wait_for(lambda: sandbox_reset.requests(ACCOUNT) != before, 15, "the handler to call the upstream", every=0.05)  # the handler called the upstream
    _assert_cut_and_free(db, org, served)


def test_a_client_that_stays_for_a_slow_answer_is_charged_as_usual(served, sandbox_reset, db, org):
    sandbox_reset.add_fault("latency", ms=300, account_id=ACCOUNT)  # slow enough to be checked
    response = httpx.get(f"{served.api.url}/v1/{ACCOUNT}/vault/media/processing", headers=auth(served.key))

    assert response.status_code == 200
    assert wait_for(lambda: usage(db, org).ledger, 15, "the ledger row", every=0.05) == [(200, 1, True)]
    assert _statuses(served.metrics_url) == {"200"}
