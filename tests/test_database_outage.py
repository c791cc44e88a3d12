"""PostgreSQL stopped and started again under load: 503s with Retry-After, never a 500,
the first request afterwards answers, and no request is metered twice.

The test runs a PostgreSQL of its own (pgserver), since it stops it, and a real ``relay serve``.
"""

from __future__ import annotations

import itertools
import os
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from app.admin import service as admin
from app.db.migrate import upgrade
from tests.fixtures.api import auth
from tests.fixtures.database import scratch_database
from tests.fixtures.net import wait_for

ROUTES = ("/v1/events", "/health")


@pytest.fixture
def own_postgres() -> Iterator[tuple[object, str]]:
    """A PostgreSQL server of this test's own, and a migrated database on it."""
    import pgserver

    # Not under pytest's tmp_path: pgserver runs PostgreSQL as its own user, who must reach it.
    with tempfile.TemporaryDirectory(prefix="relay-outage-pg-") as tmp:
        server = pgserver.get_server(Path(tmp) / "pgdata", cleanup_mode="stop")
        try:
            with scratch_database(server.get_uri(), "relay_outage") as url:
                upgrade(url)
                yield server, url
        finally:
            server.ensure_postgres_running()  # a failed test may leave it stopped
            server.cleanup()


def stop_postgres(server) -> None:
    """Fast shutdown (what a restart does): backends are ended, the socket goes away."""
    pid = server.get_pid()
    os.kill(pid, signal.SIGINT)

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(gone, 30, "PostgreSQL to stop", every=0.05)


class Load:
    """Threads calling the API in a loop; each answer kept with its request id and duration."""

    def __init__(self, url: str, key: str, threads: int = 6) -> None:
        self.url, self.key = url, key
        self.answers: list[tuple[str, str, int, dict, httpx.Headers, float]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(n,)) for n in range(threads)]

    def _run(self, n: int) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            for route in itertools.cycle(ROUTES[n % 2 :] + ROUTES[: n % 2]):
                if self._stop.is_set():
                    return
                request_id = uuid.uuid4().hex
                started = time.monotonic()
                response = client.get(route, headers={**auth(self.key), "X-Request-ID": request_id})
                elapsed = time.monotonic() - started
                body = response.json()
                self.answers.append((route, request_id, response.status_code, body, response.headers, elapsed))
                time.sleep(0.01)  # the load's pace

    def wait_for_answers(self, status: int, when: str, each: int = 3) -> None:
        """Until each route has had ``each`` more answers with ``status`` than until now."""
        start = len(self.answers)

        def answered() -> bool:
            routes = [route for route, _, got, *_ in self.answers[start:] if got == status]
            return all(routes.count(route) >= each for route in ROUTES)

        wait_for(answered, 30, f"{each} answers {status} of each route {when}", every=0.05)

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)


def test_a_database_restart_under_load_gives_only_200_and_503(own_postgres, api_process):
    server, url = own_postgres
    with psycopg.connect(url, autocommit=True) as conn:
        org_id = admin.create_organization(
            conn, "outage", credits=1_000_000, limit_minute=1_000_000, limit_day=1_000_000
        )
        key = admin.create_key(conn, org_id, "admin").secret
    api = api_process(RELAY_DATABASE_URL=url, RELAY_API_WORKERS="1")

    with Load(api.url, key) as load:
        load.wait_for_answers(200, "before the outage")
        stop_postgres(server)
        load.wait_for_answers(503, "in the outage")  # under load, on both routes
        server.ensure_postgres_running()
        with httpx.Client(base_url=api.url, timeout=30) as client:
            first = client.get("/v1/events", headers=auth(key))
        load.wait_for_answers(200, "after the restart")

    assert first.status_code == 200, first.text  # broken connections were replaced, not handed out
    statuses = {status for _, _, status, _, _, _ in load.answers}
    assert statuses <= {200, 503}, statuses
    outage = [answer for answer in load.answers if answer[2] == 503]
    assert {route for route, *_ in outage} == set(ROUTES)  # gated and ungated both answered 503
    for route, _, _, body, headers, elapsed in outage:
        if route == "/v1/events":
            assert body == {"error": "database unavailable; try again shortly", "code": "database_unavailable"}
        else:
            assert body == {"status": "unavailable", "database": "unreachable"}
        assert headers["retry-after"] == "1"
        assert elapsed < 3.0  # no 10 s connect wait (bounded by RELAY_DB_WAIT_TIMEOUT = 1 s)

    # Every answered request is on the ledger once; none twice. Ledger rows are written
    # after the responses and allowances go back when they end: a stopped API has done both.
    api.stop()
    with psycopg.connect(url) as conn:
        ledger = conn.execute(
            "SELECT request_id, credits FROM usage_ledger WHERE organization_id = %s", (org_id,)
        ).fetchall()
        failed = conn.execute(  # admitted, then the database went: on the ledger for nothing
            "SELECT count(*) FILTER (WHERE credits <> 0 OR debited) FROM usage_ledger "
            "WHERE organization_id = %s AND status >= 500", (org_id,)
        ).fetchone()[0]
        balance = conn.execute(
            "SELECT credit_balance FROM organizations WHERE id = %s", (org_id,)
        ).fetchone()[0]
    ids = [request_id for request_id, _ in ledger]
    assert len(ids) == len(set(ids))
    answered = {rid for route, rid, status, *_ in load.answers if route == "/v1/events" and status == 200}
    assert answered <= set(ids)
    assert balance == 1_000_000 - sum(credits for _, credits in ledger)
    assert failed == 0
