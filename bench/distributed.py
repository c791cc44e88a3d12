"""Case h: the store page and the backfill on a Citus cluster against one PostgreSQL.

Both sides run on this machine in the same run, with the same data: a coordinator and two
workers (``bench/citus_cluster.py``; ``BENCH_CITUS_WORKERS`` for more) and one PostgreSQL
server of the same build and settings without Citus (``CitusCluster.plain_server``).

- Backfill: each round gives each side a fresh database (migrated to head; on the cluster
  by ``relay migrate``'s own code, which gives every table its Citus kind) and times ``relay sync
  backfill`` of the same sandbox accounts (earnings, chargebacks, posts; unpaced, as case
  d). The sandbox's clock stands still meanwhile, so every database stores the same rows:
  checked per table (count and checksum of the payloads).
- Store page: the first round's databases stay; ``relay serve`` (one process, default
  settings: on the cluster it reads each account from its worker, ``RELAY_CITUS_DIRECT_READS``)
  on each, and the same requests against both (a random account and a random cursor per
  request) at every connection count of case a, the sides alternating round by round.

The cluster's three servers share this machine's cores with the one server, the API and
wrk: no speed-up can show here. The targets bound what Citus costs: the sync's page writes
through the coordinator, and Citus's planning of the store's reads on the worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial

import psycopg
from psycopg import sql

from app.db.migrate import migrate
from app.db.rows import one
from bench.citus_cluster import CitusCluster, ensure_citus, running_cluster
from bench.common import bench_database
from bench.config import CASES, BenchConfig
from bench.dataset import REFRESH_AFTER, RESOURCES, UNPACED, sync_targets
from bench.report import Rounds, Row, Target, ratios
from bench.serving import Load, expect_source, in_order, measure, rps, throughput_row
from bench.stack import Stack, provision
from bench.wrk import WrkResult

#: The first of the case's sandbox accounts (consecutive ids).
FIRST_ACCOUNT = 930_001
PLAIN = "one PostgreSQL"


@dataclass(frozen=True)
class Page:
    """A store page as clients ask it: ``path`` names ``{account}`` and ends with its cursor
    parameter's ``name=``; every request draws a cursor between the bounds that
    ``bounds_sql`` reads for the accounts (``%(accounts)s``)."""

    name: str
    path: str
    bounds_sql: str


#: Case a's store page: the earnings feed at a random ``marker`` (a second of the accounts'
#: history: the cursor its next-page links carry).
STORE_PAGE = Page(
    "earnings page",
    "/v1/{account}/earnings?marker=",
    "SELECT extract(epoch FROM min(created_at))::bigint, extract(epoch FROM max(created_at))::bigint + 1"
    " FROM earnings WHERE account_id = ANY(%(accounts)s)",
)


@dataclass(frozen=True)
class Stored:
    """A side's database after its backfill, and an admin key of the accounts' organization."""

    url: str
    key: str


def case_h(stack: Stack, server: str, config: BenchConfig) -> list[Row]:
    reason = ensure_citus()
    if reason is not None:
        return [Row("h", CASES["h"], note=f"not run: {reason}")]
    accounts = tuple(range(FIRST_ACCOUNT, FIRST_ACCOUNT + config.citus_accounts))
    for account in accounts:
        stack.sandbox.configure_account(account, earnings=config.citus_rows, history_days=365,
                                        chargebacks=config.citus_rows // 10, posts=config.citus_rows // 10)
    cluster_side = f"Citus (coordinator + {config.citus_workers} workers)"
    with running_cluster(workers=config.citus_workers) as cluster, cluster.plain_server() as plain, \
            ExitStack() as kept:
        sides = {PLAIN: partial(bench_database, plain.url()), cluster_side: partial(cluster_database, cluster)}
        seconds, rows, stored = backfill_rounds(stack, sides, accounts, config.rounds, kept)
        about = _about_the_cluster(stored[cluster_side].url, accounts)
        served = _serve(stack, stored, accounts, STORE_PAGE, config)
    speed = {side: [rows / s for s in times] for side, times in seconds.items()}
    result = [
        Row("h", f"backfill into {PLAIN}", Rounds.of(speed[PLAIN]), "rows/s",
            note=f"{len(accounts)} accounts, {rows:,} rows, the same in every database"),
        Row("h", f"backfill into {cluster_side}", Rounds.of(speed[cluster_side]), "rows/s", note=about),
        Row("h", f"backfill: Citus / {PLAIN}", ratios(speed[cluster_side], speed[PLAIN]), target=Target(">=", 0.5)),
    ]
    for connections, results in served.items():
        result += [
            throughput_row("h", f"{STORE_PAGE.name}, {PLAIN}, {connections} conn.", results[PLAIN]),
            throughput_row("h", f"{STORE_PAGE.name}, Citus, {connections} conn.", results[cluster_side]),
            Row("h", f"{STORE_PAGE.name}: Citus / {PLAIN}, {connections} conn.",
                ratios(rps(results[cluster_side]), rps(results[PLAIN])), target=Target(">=", 0.7)),
        ]
    return result


def backfill_rounds(stack: Stack, sides: Mapping[str, Callable[[], AbstractContextManager[str]]],
                     accounts: Sequence[int], rounds: int, kept: ExitStack,
                     ) -> tuple[dict[str, list[float]], int, dict[str, Stored]]:
    """Per side the backfill's seconds in each round, the rows every database holds, and
    each side's first database (left open on ``kept``)."""
    seconds: dict[str, list[float]] = {side: [] for side in sides}
    first: dict[str, Stored] = {}
    expected: dict[str, tuple[int, int]] | None = None
    # The sandbox's clock stands still while the rounds run: every database gets the same
    # rows (rows change status as time passes), and the store's coverage ends where it stood.
    stack.sandbox.set_clock(frozen=True)
    try:
        for round_ in range(rounds):
            for side, fresh in in_order(sides, round_):
                with ExitStack() as database:
                    url = database.enter_context(fresh())
                    key = provision(url, "bench-citus", *accounts)
                    took, _ = stack.with_database(url).sync(f"backfill-{_slug(side)}-{round_}", "backfill",
                                                          *sync_targets(accounts), "--no-progress", **UNPACED)
                    seconds[side].append(took)
                    found = stored_rows(url, accounts)
                    if expected is not None and found != expected:
                        raise RuntimeError(f"{side} stored {found}, another database {expected}")
                    expected = found
                    if side not in first:
                        _vacuum(url)  # fresh statistics for the store page, as the serving data set's
                        first[side] = Stored(url, key)
                        kept.enter_context(database.pop_all())
    finally:
        stack.sandbox.set_clock(now=time.time(), frozen=False)  # real time again
    assert expected is not None  # at least one round
    return seconds, sum(count for count, _ in expected.values()), first


def _vacuum(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for table in RESOURCES:
            conn.execute(sql.SQL("VACUUM ANALYZE {}").format(sql.Identifier(table)))


def _slug(side: str) -> str:
    """A side's name in its processes' log files."""
    return "plain" if side == PLAIN else "citus"


def stored_rows(url: str, accounts: Sequence[int]) -> dict[str, tuple[int, int]]:
    """Per synced table, the accounts' rows: their count and a checksum of their payloads."""
    found = {}
    with psycopg.connect(url) as conn:
        for table in RESOURCES:
            statement = sql.SQL("SELECT count(*), coalesce(sum(hashtext(payload::text)), 0)::bigint FROM {}"
                                " WHERE account_id = ANY(%s)").format(sql.Identifier(table))
            count, checksum = one(conn.execute(statement, (list(accounts),)).fetchone())
            found[table] = (count, checksum)
    return found


def _serve(stack: Stack, stored: dict[str, Stored], accounts: Sequence[int], page: Page,
           config: BenchConfig) -> dict[int, dict[str, list[WrkResult]]]:
    """Per connection count, per side, the wrk runs of ``page`` against ``relay serve``."""
    with psycopg.connect(stored[PLAIN].url) as conn:
        lo, hi = one(conn.execute(page.bounds_sql, {"accounts": list(accounts)}).fetchone())
    loads, synced = {}, time.monotonic()
    for side, database in stored.items():
        api = stack.with_database(database.url).serve(1, name=f"api-{_slug(side)}")
        loads[side] = Load(api + page.path, database.key, (lo, hi), tuple(accounts))
    served = {}
    for connections in config.connections:
        if time.monotonic() - synced > REFRESH_AFTER:  # the API answers from a recent store only
            for side, database in stored.items():
                stack.with_database(database.url).sync(f"refresh-{_slug(side)}", "run-once", *sync_targets(accounts))
            synced = time.monotonic()
        for load in loads.values():
            expect_source(load.url.replace("{account}", str(accounts[0])) + str(hi), load.key or "", "store")
        served[connections] = measure(loads, config, connections)
    stack.procs.stop_all()  # before their databases go
    return served


def _about_the_cluster(url: str, accounts: Sequence[int]) -> str:
    """Citus's version, the shards per table and how many workers hold the accounts."""
    with psycopg.connect(url) as conn:
        (version,) = one(conn.execute("SELECT citus_version()").fetchone())
        (shards,) = one(conn.execute(
            "SELECT shard_count FROM citus_tables WHERE table_name = 'earnings'::regclass").fetchone())
        (workers,) = one(conn.execute(
            "SELECT count(DISTINCT nodeport) FROM citus_shards WHERE shardid IN"
            " (SELECT get_shard_id_for_distribution_column('earnings', a) FROM unnest(%s::bigint[]) a)",
            (list(accounts),)).fetchone())
    return f"{' '.join(version.split()[:2])}, {shards} shards per table, the accounts on {workers} workers"


@contextmanager
def cluster_database(cluster: CitusCluster) -> Iterator[str]:
    """A fresh database on the cluster as ``relay migrate`` leaves a coordinator's: migrated,
    every table in its Citus kind (layout B, docs/scaling.md)."""
    with cluster.scratch_database("relay_bench") as url:
        migrate(url)
        yield url
