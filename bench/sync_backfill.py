"""Benchmark: backfill of 1,000,000 earnings rows of one account from the sandbox.

Run by hand from the repository root (results go to docs/benchmarks.md, "Sync backfill")::

    .venv/bin/python bench/sync_backfill.py [--rows 1000000] [--database-url URL]

What it measures, in one run:

1. **End to end**: ``relay sync backfill --account A --resource earnings`` as a real worker
   process against a real sandbox over HTTP (no injected latency, no pacing, 1000-row pages),
   into a fresh database. Rows per second over the process's wall time, and the worker's
   peak memory (max RSS of the finished child process).
2. **Raw COPY-and-merge** of the same rows: the stored payloads, prepared as COPY text pages
   of 1000 rows before the clock starts, then for each page COPY into the staging table and
   the writer's merge statement (``sync.writers.merge_sql``, asynchronous commit included,
   without the engine's bookkeeping CTEs) into another account, one transaction per page.
   This is the database's share of the work alone; the ratio says how much the fetching,
   decoding and bookkeeping cost on top.

The store is then checked against the sandbox's ground truth (count and checksum).
The scratch database is made on ``--database-url`` (else ``BENCH_DATABASE_URL`` or
``TEST_DATABASE_URL``, else an embedded PostgreSQL) and dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from psycopg import AsyncConnection

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bench_database, machine  # noqa: E402
from sync.resources import EARNINGS  # noqa: E402
from sync.writers import _COPY, _STAGING_DDL, merge_sql  # noqa: E402
from tests.fixtures.sandbox import SANDBOX_EPOCH, start_sandbox, stop_sandbox  # noqa: E402
from tests.sync.helpers import add_account, sandbox_truth, store_truth  # noqa: E402

ACCOUNT = 900_001
RAW_ACCOUNT = 900_002
PAGE = 1000


def end_to_end(database_url: str, sandbox_url: str) -> tuple[float, int]:
    """(seconds, peak RSS in kB) of one backfill worker process."""
    env = {
        **os.environ,
        "RELAY_DATABASE_URL": database_url,
        "RELAY_UPSTREAM_URL": sandbox_url,
        "RELAY_SYNC_CLOCK": "sandbox",
        "RELAY_BACKFILL_REQUESTS_PER_SECOND": "0",
        "RELAY_SYNC_PAGE_SIZE": str(PAGE),
        "RELAY_SYNC_BACKFILL_SLICE_SECONDS": "3600",
        "RELAY_LOG_LEVEL": "WARNING",
        "RELAY_LOG_JSON": "false",
    }
    command = [sys.executable, "-m", "app.cli", "sync", "backfill", "--account", str(ACCOUNT),
               "--resource", "earnings", "--no-progress"]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True)
    elapsed = time.perf_counter() - started
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def raw_pages(database_url: str) -> list[tuple[dict, bytes]]:
    """The stored rows as (partition constants, COPY text page), prepared untimed."""
    pages = []
    with psycopg.connect(database_url) as conn:
        for part in EARNINGS.partitions:
            rows = conn.execute(
                """
                SELECT payload::text FROM earnings
                WHERE account_id = %s AND type = %s AND tips_source IS NOT DISTINCT FROM %s
                ORDER BY created_at DESC, id DESC
                """,
                (ACCOUNT, part.constants["type"], part.constants["tips_source"]),
            ).fetchall()
            for i in range(0, len(rows), PAGE):
                text = "\n".join(r[0] for r in rows[i:i + PAGE]).replace("\\", "\\\\") + "\n"
                pages.append((dict(part.constants), text.encode()))
    return pages


async def raw_merge(database_url: str, pages: list[tuple[dict, bytes]]) -> float:
    sql = merge_sql(EARNINGS)
    async with await AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute(_STAGING_DDL)
        started = time.perf_counter()
        for constants, text in pages:
            async with conn.transaction(), conn.cursor() as cur:
                async with cur.copy(_COPY) as copy:
                    await copy.write(text)
                await cur.execute(sql, {**constants, "account_id": RAW_ACCOUNT, "run_id": None})
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=None, help="server to create the scratch database on")
    args = parser.parse_args()

    print(f"date {datetime.now(UTC).isoformat(timespec='seconds')}; {machine()}")
    print(f"load average before: {os.getloadavg()}")
    with bench_database(args.database_url) as database_url:
        run(database_url, args.rows)


def run(database_url: str, rows_wanted: int) -> None:
    process, sandbox = start_sandbox(None, SANDBOX_EPOCH)
    try:
        sandbox.configure_account(ACCOUNT, earnings=rows_wanted, history_days=365)
        with psycopg.connect(database_url, autocommit=True) as conn:
            add_account(conn, ACCOUNT)
            add_account(conn, RAW_ACCOUNT)

        seconds, peak_kb = end_to_end(database_url, sandbox.url)
        now = int(sandbox.clock()["now"])
        with psycopg.connect(database_url) as conn:
            stored = store_truth(conn, ACCOUNT, "earnings", 0, now)
        truth = sandbox_truth(sandbox, ACCOUNT, "earnings", 0, now)
        assert stored == truth, (stored, truth)
        rows = stored["count"]
        e2e_rate = rows / seconds
        print(f"end to end: {rows} rows in {seconds:.1f} s = {e2e_rate:,.0f} rows/s; "
              f"worker peak RSS {peak_kb / 1024:.0f} MB; store == sandbox truth ({truth['checksum']})")

        pages = raw_pages(database_url)
        raw_seconds = asyncio.run(raw_merge(database_url, pages))
        raw_rate = rows / raw_seconds
        print(f"raw COPY-and-merge: {rows} rows in {raw_seconds:.1f} s = {raw_rate:,.0f} rows/s")
        print(f"ratio end to end / raw: {e2e_rate / raw_rate:.2f}")
        print(f"load average after: {os.getloadavg()}")
    finally:
        sandbox.control.close()
        stop_sandbox(process)


if __name__ == "__main__":
    main()
