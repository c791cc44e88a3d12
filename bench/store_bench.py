"""Store benchmark: 1,000,000 earnings rows in one account, the store-served feed and chart.

Run by hand from the repository root (needs ``wrk``)::

    .venv/bin/python bench/store_bench.py            # embedded PostgreSQL in a temp dir
    TEST_DATABASE_URL=postgresql://... .venv/bin/python bench/store_bench.py

One run measures, on one uvicorn worker, with the gate benchmark's ``wrk`` runner
(``bench/gate_bench.py``) at 32 connections, alternating rounds so machine drift hits both:

1. the store-served ``/v1/{A}/earnings`` (gate included) against ``/open/{A}/earnings``, a
   minimal Litestar route running the same keyset query with psycopg (``bench/store_app.py``);
2. page 1 against page 10,000 of a walk (the cursor of page 10,000 computed in SQL);
3. the two-year earnings chart: sequential requests, median and p95 latency end to end.

Rows are loaded with one ``INSERT ... SELECT generate_series`` (pairs of rows share each
second, so the tie-breaker is exercised); the rollup triggers fill ``earnings_daily``.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import admin  # noqa: E402
from bench.common import bench_database  # noqa: E402
from bench.gate_bench import wrk  # noqa: E402  (the gate engineer's runner, reused)

ACCOUNT = 4343
ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PORT = 18600
START = "2024-11-01 00:00:00"
#: The deep page of the walk (10,000 with the full million; smaller trial runs go half way).
DEEP_PAGE = min(10_000, ROWS // 20)

LOAD_SQL = """
INSERT INTO earnings (account_id, id, type, tips_source, created_at, status, amount, net, fee,
                      vat_amount, tax_amount, media_tax_amount, currency, payout_pending_days, user_id, payload)
SELECT %(account)s, (1000000000000 + i)::text, t.type, t.source, at, 'done', 10.00, 8.00, 2.00, 0, 0, 0, 'USD', 7, 77,
       jsonb_build_object('id', (1000000000000 + i)::text, 'amount', 10.0, 'vatAmount', 0, 'taxAmount', 0,
         'mediaTaxAmount', 0, 'net', 8.0, 'fee', 2.0, 'currency', 'USD',
         'createdAt', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'),
         'description', 'Tip from <a href="https://example.test/u77">u77</a>', 'status', 'done',
         'payoutPendingDays', 7, 'user', jsonb_build_object('id', 77, 'name', 'Fan', 'username', 'fan77'))
FROM generate_series(0, %(rows)s - 1) AS i
CROSS JOIN LATERAL (SELECT timestamptz '2024-11-01 00:00:00+00' + ((i / 2) * interval '62 seconds') AS at) AS w
CROSS JOIN LATERAL (SELECT (ARRAY['subscribes','tips','post','chat_messages','stream'])[1 + i %% 5] AS type,
                           CASE WHEN i %% 5 = 1 THEN 'chat' END AS source) AS t
"""


def seed(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        org = admin.create_organization(conn, "bench-store", limit_minute=10**9, limit_day=2 * 10**9)
        admin.add_credits(conn, org, 10**12)
        admin.connect_account(conn, org, ACCOUNT, "bench-token")
        began = time.monotonic()
        conn.execute(LOAD_SQL, {"account": ACCOUNT, "rows": ROWS})
        loaded = time.monotonic() - began
        conn.execute("VACUUM ANALYZE earnings")
        conn.execute("VACUUM ANALYZE earnings_daily")
        # The store covers the whole history, up to now.
        conn.execute(
            "INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at) "
            "VALUES (%s, 'earnings', to_timestamp(0), now() + interval '1 day', now())", (ACCOUNT,))
        print(f"loaded {ROWS} rows (and the rollup) in {loaded:.1f} s", file=sys.stderr)
        return admin.create_key(conn, org, "admin").secret


def page_cursor(url: str, page: int) -> tuple[int, str]:
    """(marker, marker_id) that asks for page ``page`` (1-based) of the default walk."""
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT extract(epoch FROM created_at)::bigint, id FROM earnings WHERE account_id = %s "
            "ORDER BY created_at DESC, id DESC OFFSET %s LIMIT 1", (ACCOUNT, (page - 1) * 10 - 1),
        ).fetchone()


def serve(url: str) -> subprocess.Popen:
    env = {**os.environ, "RELAY_DATABASE_URL": url, "RELAY_LOG_LEVEL": "WARNING",
           "RELAY_DB_POOL_MAX": "32", "RELAY_DB_POOL_MIN": "8"}
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "bench.store_app:create_bench_app", "--factory", "--port", str(PORT),
         "--workers", "1", "--no-access-log", "--log-level", "warning"], cwd=ROOT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{PORT}/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("server did not start")


def latencies(client: httpx.Client, path: str, key: str, n: int = 60) -> tuple[float, float]:
    samples = []
    for _ in range(n):
        began = time.perf_counter()
        response = client.get(path, headers={"Authorization": f"Bearer {key}"})
        samples.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.text
        assert response.json()["_meta"]["_cache"]["source"] == "store"
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def run(url: str) -> None:
    key = seed(url)
    marker, marker_id = page_cursor(url, DEEP_PAGE)
    start = quote(START)
    process = serve(url)
    base = f"http://127.0.0.1:{PORT}"
    try:
        targets = {
            "open": (f"{base}/open/{ACCOUNT}/earnings?start_date={start}", None),
            "store": (f"{base}/v1/{ACCOUNT}/earnings?start_date={start}", key),
            "store p10000": (f"{base}/v1/{ACCOUNT}/earnings?start_date={start}&marker={marker}&marker_id={marker_id}", key),
        }
        for target, auth in targets.values():  # warm-up: prepared statements, pool, caches
            wrk(target, auth)
        results: dict[str, list[float]] = {name: [] for name in targets}
        for _ in range(ROUNDS):
            for name, (target, auth) in targets.items():
                results[name].append(wrk(target, auth))
        with httpx.Client(base_url=base, timeout=30) as client:
            chart = latencies(client, f"/v1/{ACCOUNT}/earnings/chart?start_date={start}", key)
            page1 = latencies(client, f"/v1/{ACCOUNT}/earnings?start_date={start}", key)
            page_deep = latencies(client, targets["store p10000"][0][len(base):], key)
    finally:
        process.terminate()
        process.wait(timeout=15)
    rps = {name: statistics.median(v) for name, v in results.items()}
    print(f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.platform()}, Python {platform.python_version()}; {ROWS:,} earnings rows in one account; "
          f"1 uvicorn worker, wrk -t1 -c32, {ROUNDS} alternating rounds (medians)")
    print()
    print("| measure | value | rounds |")
    print("|---|---|---|")
    for name in targets:
        print(f"| {name} (req/s) | {rps[name]:.0f} | {' '.join(f'{v:.0f}' for v in results[name])} |")
    print(f"| store / open throughput | {rps['store'] / rps['open']:.0%} | target >= 60% |")
    print(f"| page 10,000 cost / page 1 cost (by throughput) | {rps['store'] / rps['store p10000']:.2f} | target <= 1.5 |")
    print(f"| page 1 latency, sequential (median / p95 ms) | {page1[0]:.1f} / {page1[1]:.1f} | |")
    print(f"| page 10,000 latency, sequential (median / p95 ms) | {page_deep[0]:.1f} / {page_deep[1]:.1f} | |")
    print(f"| two-year chart latency, sequential (median / p95 ms) | {chart[0]:.1f} / {chart[1]:.1f} | target < 50 |")


def main() -> None:
    with bench_database() as url:
        run(url)


if __name__ == "__main__":
    main()
