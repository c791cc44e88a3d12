"""The serving data set: one account's history synced from the sandbox by the real sync.

The sandbox account is sized (earnings, chargebacks, posts) and ``relay sync backfill``
stores it, unpaced, as an operator would before opening an account to its users; so the
rows are exactly what the sync writes, and the coverage is the sync's own.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

import psycopg

from app.db.rows import one
from bench.config import BenchConfig
from bench.stack import Stack, provision

SERVING_ACCOUNT = 910_001
RESOURCES = ("earnings", "chargebacks", "posts")
#: How a backfill of the benchmark runs: 1000-row pages, long slices, and unpaced: neither
#: the per-process backfill pacer nor the per-account upstream budget (10 requests/s by
#: default, the upstream's limit in production; the sandbox has none). With the budget on,
#: case d measured the budget (~1,000 pages at 10/s), not the sync (docs/benchmarks.md).
UNPACED = {"backfill_requests_per_second": "0", "sync_upstream_rps": "0", "sync_page_size": "1000",
           "sync_backfill_slice_seconds": "3600"}
#: Store coverage older than this is refreshed before a serving case (the API answers from
#: the store only while the coverage is at most 15 minutes behind now).
REFRESH_AFTER = 240.0


@dataclass
class Serving:
    account: int
    key: str
    markers: tuple[int, int]  # first and last second of the account's earnings history
    rows: int
    load_seconds: float
    refreshed: float  # time.monotonic() of the last sync of the account

    def refresh(self, stack: Stack) -> None:
        """An incremental pass (``relay sync run-once``) when the coverage is getting old."""
        if time.monotonic() - self.refreshed > REFRESH_AFTER:
            stack.sync("refresh", "run-once", *sync_targets([self.account]))
            self.refreshed = time.monotonic()


def sync_targets(accounts: Iterable[int], resources: Iterable[str] = RESOURCES) -> list[str]:
    """The ``relay sync`` arguments naming ``accounts`` and ``resources``."""
    return [*(arg for a in accounts for arg in ("--account", str(a))),
            *(arg for r in resources for arg in ("--resource", r))]


def build(stack: Stack, config: BenchConfig) -> Serving:
    stack.sandbox.configure_account(SERVING_ACCOUNT, earnings=config.earnings_rows, history_days=365,
                                    chargebacks=config.paged_rows, posts=config.paged_rows)
    key = provision(stack.database_url, "bench-serving", SERVING_ACCOUNT)
    seconds, _ = stack.sync("serving-backfill", "backfill", *sync_targets([SERVING_ACCOUNT]), "--no-progress",
                            **UNPACED)
    with psycopg.connect(stack.database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE earnings")
        conn.execute("VACUUM ANALYZE chargebacks")
        conn.execute("VACUUM ANALYZE posts")
        lo, hi, rows = one(conn.execute(
            "SELECT extract(epoch FROM min(created_at))::bigint, extract(epoch FROM max(created_at))::bigint + 1, "
            "count(*) FROM earnings WHERE account_id = %s", (SERVING_ACCOUNT,)).fetchone())
    return Serving(SERVING_ACCOUNT, key, (lo, hi), rows, seconds, time.monotonic())
