"""Prometheus metrics: the API's (summed over its processes by `relay serve`) and the worker's."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.metrics import serve_metrics
from sync.cli import run_until_idle
from sync.metrics import refresh_store_gauges
from tests.fixtures.api import auth
from tests.fixtures.net import free_port


def samples(url: str) -> dict[tuple[str, tuple], float]:
    text = httpx.get(url, timeout=5).text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(scraped: dict, name: str, **labels: str) -> float:
    return scraped.get((name, tuple(sorted(labels.items()))), 0.0)


HEALTH = {"route": "/health", "method": "GET", "status": "200", "source": "none"}


@pytest.mark.parametrize("processes", [1, 2])
def test_the_request_counter_moves_with_traffic_summed_over_every_api_process(
    api_process, db, make_org, make_key, tmp_path: Path, processes: int
):
    metrics_port = free_port()
    api = api_process(RELAY_API_WORKERS=str(processes), RELAY_API_METRICS_PORT=str(metrics_port))
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    key = make_key(make_org())
    before = samples(url)
    with httpx.Client(base_url=api.url) as client:
        for _ in range(30):  # new connections: the kernel spreads them over the processes
            assert httpx.get(f"{api.url}/health").status_code == 200
        assert client.get("/v1/1/chats").status_code == 401
        assert client.get("/v1/999/chats", headers=auth(key)).status_code == 404
    after = samples(url)

    assert value(after, "relay_http_requests_total", **HEALTH) - value(before, "relay_http_requests_total", **HEALTH) == 30
    latency = {"route": "/health", "method": "GET", "source": "none"}
    assert value(after, "relay_http_request_duration_seconds_count", **latency) >= 30
    assert value(after, "relay_gate_refusals_total", status="401") - value(before, "relay_gate_refusals_total", status="401") == 1
    assert value(after, "relay_gate_refusals_total", status="404") - value(before, "relay_gate_refusals_total", status="404") == 1
    chats = {"route": "/v1/{account_id}/chats", "method": "GET", "source": "none"}
    assert value(after, "relay_http_requests_total", status="401", **chats) == 1
    # No label names an account or a key.
    assert not any(label in ("account_id", "key") for _, labels in after for label, _ in labels)
    pids = {int(p.stem.rsplit("_", 1)[-1]) for p in (tmp_path / "relay" / "metrics").rglob("counter_*.db")}
    # Every API process wrote its own samples (with 2, uvicorn's parent also has a file of zeros).
    serving = pids - {api.process.pid} if processes > 1 else pids
    assert len(serving) == processes, pids


def test_the_worker_counts_rows_and_passes_and_reports_lag_due_and_leases(
    db, sandbox, sync_settings, connect_account, make_org, database_url
):
    from sync.metrics import SYNC_ROWS

    account = 730_001
    connect_account(make_org(), account)
    sandbox.configure_account(account, earnings=200, history_days=30)
    before = SYNC_ROWS.labels("earnings", "inserted")._value.get()
    run_until_idle(sync_settings, [(account, "earnings")])

    async def refresh() -> None:
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            await refresh_store_gauges(conn)

    asyncio.run(refresh())
    port = free_port()
    server = serve_metrics("127.0.0.1", port)
    try:
        scraped = samples(f"http://127.0.0.1:{port}/metrics")
    finally:
        server.shutdown()
        server.server_close()
    stored = db.execute("SELECT count(*) FROM earnings WHERE account_id = %s", (account,)).fetchone()[0]
    inserted = value(scraped, "relay_sync_rows_total", resource="earnings", outcome="inserted")
    assert stored > 0 and inserted - before == stored
    assert value(scraped, "relay_sync_pass_duration_seconds_count", resource="earnings", kind="backfill") >= 1
    (end,) = db.execute(
        "SELECT coverage_end FROM sync_state WHERE account_id = %s AND resource = 'earnings'", (account,)
    ).fetchone()
    worst = value(scraped, "relay_sync_coverage_lag_seconds", resource="earnings", stat="worst")
    assert abs(worst - (time.time() - end.timestamp())) < 120
    # Every other resource of the account was enqueued and is due, nobody holds a lease now.
    assert value(scraped, "relay_sync_tasks_due", resource="posts") == 1
    assert value(scraped, "relay_sync_leases_held", resource="earnings") == 0
