"""Case d: ``relay sync backfill`` of one account's earnings against a raw COPY-and-merge.

Each round runs in a fresh database: the backfill as a real process over HTTP from the
sandbox (unpaced, 1000-row pages; wall time and the process's own peak RSS), the store
checked against the sandbox's ground truth, then the same rows -- read back from the store,
prepared as pages before the clock starts -- COPYed and merged into another account with
the sync's own page writer (``sync.writers.PageWriter``: staging COPY + the page write,
without the engine's bookkeeping), one transaction per page. That is the database's share
of the work alone. After the backfill it also weighs the page write's staging tables
(``app/db/staging.py``: every page's rows go in and out of them, and what autovacuum has not
reclaimed yet stays on disk) beside the earnings table itself.
"""

from __future__ import annotations

import asyncio
import time
from typing import NamedTuple

import msgspec
import psycopg
from psycopg import AsyncConnection

from app.db.rows import one
from bench.common import bench_database
from bench.config import BenchConfig
from bench.dataset import UNPACED
from bench.report import Rounds, Row, Target, ratios
from bench.stack import Stack, provision
from sync.resources import EARNINGS
from sync.writers import PageWriter
from tests.sync.helpers import sandbox_truth, store_truth

BACKFILL_ACCOUNT = 910_002
RAW_ACCOUNT = 910_003
PAGE = 1000

Page = tuple[dict, list[msgspec.Raw]]


def stored_rows(database_url: str) -> tuple[int, dict]:
    """(coverage end, count and checksum of the backfilled rows up to it)."""
    with psycopg.connect(database_url) as conn:
        (end,) = one(conn.execute("SELECT extract(epoch FROM coverage_end)::bigint FROM sync_state "
                                  "WHERE account_id = %s AND resource = 'earnings'", (BACKFILL_ACCOUNT,)).fetchone())
        return end, store_truth(conn, BACKFILL_ACCOUNT, "earnings", 0, end)


def raw_pages(database_url: str) -> list[Page]:
    """The stored payloads per partition in pages, as the sync received them (untimed)."""
    pages = []
    with psycopg.connect(database_url) as conn:
        for part in EARNINGS.fixed_partitions:
            rows = conn.execute(
                "SELECT payload::text FROM earnings WHERE account_id = %s AND type = %s "
                "AND tips_source IS NOT DISTINCT FROM %s ORDER BY created_at DESC, id DESC",
                (BACKFILL_ACCOUNT, part.constants["type"], part.constants["tips_source"])).fetchall()
            payloads = [msgspec.Raw(r[0].encode()) for r in rows]
            pages += [(dict(part.constants), payloads[i:i + PAGE]) for i in range(0, len(payloads), PAGE)]
    return pages


async def raw_merge(database_url: str, pages: list[Page]) -> float:
    writer = PageWriter(EARNINGS)
    async with await AsyncConnection.connect(database_url, autocommit=True) as conn:
        started = time.perf_counter()
        for constants, rows in pages:
            async with conn.transaction():
                await writer.write_page(conn, rows, account_id=RAW_ACCOUNT, run_id=None, constants=constants)
        return time.perf_counter() - started


#: (staging tables, earnings table) on disk, bytes, with their indexes.
_SIZES = """
SELECT pg_total_relation_size('sync_page_rows') + pg_total_relation_size('sync_page_old'),
       pg_total_relation_size('earnings')
"""


class Round(NamedTuple):
    """One round's figures (sizes on disk, with their indexes, after the backfill)."""

    rows: int
    seconds: float
    raw_seconds: float
    peak_kb: int
    staging_bytes: int
    table_bytes: int


def one_round(stack: Stack, server: str, round_: int) -> Round:
    """The backfill and the raw merge in a fresh database."""
    with bench_database(server) as url:
        provision(url, "bench-backfill", BACKFILL_ACCOUNT, RAW_ACCOUNT)
        seconds, peak_kb = stack.with_database(url).sync(
            f"backfill-{round_}", "backfill", "--account", str(BACKFILL_ACCOUNT), "--resource", "earnings",
            "--no-progress", **UNPACED)
        end, stored = stored_rows(url)
        truth = sandbox_truth(stack.sandbox, BACKFILL_ACCOUNT, "earnings", 0, end)
        if stored != truth:
            raise RuntimeError(f"backfilled store {stored} differs from the sandbox's truth {truth}")
        with psycopg.connect(url) as conn:
            staging, table = one(conn.execute(_SIZES).fetchone())
        return Round(stored["count"], seconds, asyncio.run(raw_merge(url, raw_pages(url))), peak_kb, staging, table)


def case_d(stack: Stack, server: str, config: BenchConfig) -> list[Row]:
    stack.sandbox.configure_account(BACKFILL_ACCOUNT, earnings=config.backfill_rows, history_days=365)
    # The sandbox's clock stands still meanwhile: rows change status as it runs (pending ->
    # done), and the store is checked against the truth of the moment it was fetched.
    stack.sandbox.set_clock(frozen=True)
    try:
        rounds = [one_round(stack, server, i) for i in range(config.rounds)]
    finally:
        stack.sandbox.set_clock(now=time.time(), frozen=False)  # real time again
    synced = [r.rows / r.seconds for r in rounds]
    raw = [r.rows / r.raw_seconds for r in rounds]
    peak_mb = [r.peak_kb / 1024 for r in rounds]
    staging_mb = [r.staging_bytes / 2**20 for r in rounds]
    table = f"earnings table {min(r.table_bytes for r in rounds) / 2**20:,.0f} MB with its indexes"
    rows = f"{min(r.rows for r in rounds):,} rows, store == sandbox truth"
    return [Row("d", "relay sync backfill (process wall time)", Rounds.of(synced), "rows/s", note=rows),
            Row("d", "raw COPY-and-merge of the same rows", Rounds.of(raw), "rows/s"),
            Row("d", "backfill / raw merge", ratios(synced, raw), target=Target(">=", 0.5)),
            Row("d", "backfill process peak RSS", Rounds.of(peak_mb), "MB", target=Target("<", 300)),
            Row("d", "page staging tables on disk after the backfill", Rounds.of(staging_mb), "MB", note=table)]
