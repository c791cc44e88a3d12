"""Case h's two sides (bench/distributed.py): the same rows backfilled into one PostgreSQL and
into a database on the Citus cluster, whose account tables alone are distributed."""

from __future__ import annotations

from contextlib import ExitStack
from functools import partial

import psycopg
import pytest

from bench import distributed
from bench.common import bench_database
from bench.procs import Processes
from bench.stack import Stack
from tests.fixtures.sandbox import fresh_account_id

pytestmark = pytest.mark.slow


def _distributed(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone() is None:
            return set()
        return {name for (name,) in conn.execute(
            "SELECT table_name::text FROM citus_tables WHERE citus_table_type = 'distributed'")}


def test_both_sides_hold_the_same_backfilled_rows_and_only_the_cluster_is_distributed(
        citus_cluster, postgres_server_url, sandbox_reset, tmp_path):
    account = fresh_account_id()
    sandbox_reset.configure_account(account, earnings=600, history_days=30, chargebacks=60, posts=60)
    sides = {distributed.PLAIN: partial(bench_database, postgres_server_url),
             "cluster": partial(distributed.cluster_database, citus_cluster)}
    with Processes(tmp_path) as procs, ExitStack() as kept:
        seconds, rows, stored = distributed.backfill_rounds(
            Stack(procs, "", sandbox_reset, tmp_path), sides, [account], rounds=2, kept=kept)

        assert {side: len(times) for side, times in seconds.items()} == {distributed.PLAIN: 2, "cluster": 2}
        assert rows >= 720  # every earnings row, chargeback and post of the account
        plain, cluster = (distributed.stored_rows(stored[side].url, [account]) for side in sides)
        assert plain == cluster and sum(count for count, _ in plain.values()) == rows
        assert _distributed(stored[distributed.PLAIN].url) == set()
        assert {"earnings", "chargebacks", "posts", "sync_state"} <= _distributed(stored["cluster"].url)
