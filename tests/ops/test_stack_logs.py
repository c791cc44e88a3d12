"""`relay demo` (what `make run` runs) writes JSON lines only, from every process, and a
request's X-Request-ID is on its response, its ledger row and its log lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.demo.test_demo import stop_demo
from tests.fixtures.database import TEST_KEYS_ENV
from tests.fixtures.net import free_port, wait_for

pytestmark = pytest.mark.slow


def test_every_line_of_the_demo_stack_is_json_and_a_request_id_is_answered_stored_and_logged(
    empty_database, tmp_path: Path
):
    api_port, sandbox_port, api_metrics, worker_metrics = (free_port() for _ in range(4))
    with empty_database() as database_url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
        env.update(
            RELAY_DATABASE_URL=database_url,
            **TEST_KEYS_ENV,
            RELAY_DATA_DIR=str(tmp_path / "relay"),
            RELAY_API_PORT=str(api_port),
            RELAY_SANDBOX_PORT=str(sandbox_port),
            RELAY_LOG_LEVEL="DEBUG",  # the request lines and the demoted scheduler lines too
            RELAY_SYNC_TICK_SECONDS="1",
            RELAY_API_METRICS_PORT=str(api_metrics),
            RELAY_WORKER_METRICS_PORT=str(worker_metrics),
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "demo"], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
        reader.start()
        try:
            def ready():
                return next((json.loads(x) for x in list(lines) if '"demo_ready"' in x), None)

            banner = wait_for(ready, 120, "the demo_ready line", every=0.2)
            key, base = banner["api_key"], banner["api"]
            auth = {"Authorization": f"Bearer {key}"}
            given = httpx.get(f"{base}/v1/1001/chats?limit=1", headers={**auth, "X-Request-ID": "must-show-1"}, timeout=15)
            assert given.status_code == 200 and given.headers["x-request-id"] == "must-show-1"
            made = httpx.get(f"{base}/v1/1001/earnings", headers={**auth, "X-Request-ID": "not sane!"}, timeout=15)
            generated = made.headers["x-request-id"]
            assert made.status_code == 200 and len(generated) == 32
            wait_for(lambda: any("Running job" in x for x in list(lines)), 30, "a scheduler tick", every=0.2)
            # Both processes serve their metrics: the API's requests, the worker's sync.
            api_text = httpx.get(f"http://127.0.0.1:{api_metrics}/metrics").text
            assert 'relay_http_requests_total{method="GET",route="/v1/{account_id}/chats",source="upstream",status="200"} 1.0' in api_text
            def worker_counted():
                text = httpx.get(f"http://127.0.0.1:{worker_metrics}/metrics").text
                return text if 'relay_sync_rows_total{outcome="inserted",resource="earnings"}' in text else None

            worker_text = wait_for(worker_counted, 60, "rows synced and counted by the worker", every=0.2)
            assert 'relay_sync_tasks_due{resource="earnings"}' in worker_text

            def ledger():
                with psycopg.connect(database_url) as conn:
                    rows = conn.execute(
                        "SELECT request_id, route, status FROM usage_ledger "
                        "WHERE request_id = ANY(%s) AND status IS NOT NULL ORDER BY id",
                        (["must-show-1", generated],),
                    ).fetchall()
                return rows if len(rows) == 2 else None

            rows = wait_for(ledger, 10, "the final ledger statuses", every=0.2)
            assert rows == [("must-show-1", "/v1/{account_id}/chats", 200), (generated, "/v1/{account_id}/earnings", 200)]
        finally:
            stop_demo(proc)
        reader.join(timeout=10)  # it drains what the processes wrote last, up to the pipe's end

    entries = []
    for line in lines:
        if line.strip():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                pytest.fail(f"a line of the stack is not JSON: {line!r}")
    processes = {e.get("process") for e in entries}
    assert {"api", "worker", "sandbox", "cli"} <= processes, processes
    assert all({"ts", "level", "logger", "event", "pid"} <= set(e) for e in entries)
    for rid, route in (("must-show-1", "/v1/{account_id}/chats"), (generated, "/v1/{account_id}/earnings")):
        finished = [e for e in entries if e.get("request_id") == rid and e["event"] == "request_finished"]
        assert [(e["route"], e["status"], e["process"]) for e in finished] == [(route, 200, "api")]
    # uvicorn's own records, in the same format
    assert any(e["logger"].startswith("uvicorn") for e in entries)
    # the clock's routine lines ("Running job ...", job bookkeeping) are DEBUG, never INFO
    ticks = [e for e in entries if e["logger"].startswith("apscheduler")]
    running = [e for e in ticks if "Running job" in e["event"]]
    assert running and {e["level"] for e in running} == {"debug"}
    assert "info" not in {e["level"] for e in ticks}  # (a missed run is still a WARNING)
