"""The reads that span accounts, and the batched page read, on a Citus cluster in layout B
(docs/scaling.md, survey items 12-17): each answers there what it answers on one PostgreSQL,
and the ones that name accounts read only those accounts' shards.

Both databases are migrated by ``relay migrate`` and hold the same rows; the cluster's has
the per-account tables distributed by ``account_id``, co-located.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app.admin.service import list_accounts
from app.db.migrate import migrate
from app.store.batched import BatchedReads
from app.store.earnings_feed import FeedQuery, page_item, pages_statement
from app.store.recount import recount
from app.store.status import status_reads
from sync import leases, state
from sync.pairs import pair_keys
from sync.schedules import store as schedules_store
from tests.fixtures.store import write_page
from tests.store.test_snapshot_ordinals import item, misnumbered

pytestmark = pytest.mark.slow

T0 = datetime(2025, 1, 1, tzinfo=UTC)
#: Organization -> its accounts; 102 is paused, 103 has tasks but no state, 202 state but no task.
ORGANIZATIONS = {1: (101, 102, 103), 2: (201, 202)}
RESOURCES = ("earnings", "posts")
EARNING_ACCOUNTS = (101, 102, 201)
# (id, account, resource, kind, status, rows inserted): the pairs' runs, several per pair.
RUNS = [
    (1, 101, "earnings", "backfill", "succeeded", 40), (2, 101, "posts", "incremental", "running", 3),
    (3, 102, "earnings", "backfill", "succeeded", 7), (4, 201, "posts", "backfill", "succeeded", 11),
    (5, 101, "earnings", "backfill", "failed", 5), (6, 201, "posts", "incremental", "running", 2),
]


def fill(conn: psycopg.Connection) -> None:
    """The same rows in either database, every time fixed (nothing from now())."""
    for org, accounts in ORGANIZATIONS.items():
        conn.execute("INSERT INTO organizations (id, name, limit_minute, limit_day) VALUES (%s, %s, 10, 10)",
                     (org, f"org{org}"))
        for account in accounts:
            conn.execute(
                "INSERT INTO accounts (id, organization_id, status, upstream_token, label, created_at, updated_at) "
                "VALUES (%s, %s, %s, 'sealed', %s, %s, %s)",
                (account, org, "paused" if account == 102 else "active", f"account {account}", T0, T0),
            )
    for account in (101, 102, 103, 201):
        for resource in RESOURCES:
            pending = (account, resource) in {(101, "earnings"), (102, "earnings"), (201, "posts")}
            conn.execute(
                "INSERT INTO sync_tasks (account_id, resource, due_at, backfill_since, failures) "
                "VALUES (%s, %s, %s, %s, %s)",
                (account, resource, T0, T0 if pending else None, 1 if account == 101 and pending else 0),
            )
    for account, resource, error in [(101, "earnings", None), (101, "posts", None), (102, "earnings", "401: rejected"),
                                     (201, "earnings", None), (201, "posts", "500: upstream"), (202, "earnings", None)]:
        conn.execute(
            "INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at, "
            "last_error, last_error_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (account, resource, T0, T0 + timedelta(days=20), T0 + timedelta(days=20), error,
             T0 + timedelta(days=21) if error else None, T0),
        )
    for run_id, account, resource, kind, status, inserted in RUNS:
        conn.execute(
            "INSERT INTO sync_runs (id, account_id, resource, kind, status, started_at, finished_at, rows_inserted) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (run_id, account, resource, kind, status, T0 + timedelta(minutes=run_id),
             None if status == "running" else T0 + timedelta(minutes=run_id, seconds=30), inserted),
        )
    for account in EARNING_ACCOUNTS:
        conn.execute(
            "INSERT INTO earnings (account_id, id, type, created_at, amount, net, fee, payload) "
            "SELECT %(a)s, (%(a)s * 100000 + i)::text, CASE WHEN i %% 3 = 0 THEN 'tips' ELSE 'post' END, "
            "%(t0)s + (i / 3) * interval '1 hour', 2, 1, 1, jsonb_build_object('i', i) "
            "FROM generate_series(1, 400) i",
            {"a": account, "t0": T0},
        )
        conn.execute(
            "INSERT INTO chargebacks (account_id, id, created_at, payload) "
            "SELECT %s, i, %s + i * interval '1 minute', '{}' FROM generate_series(1, 6) i",
            (account, T0),
        )


@dataclass(frozen=True)
class Databases:
    plain: str  # one PostgreSQL
    citus: str  # the cluster's coordinator


@pytest.fixture(scope="module")
def databases(empty_database, citus_empty_database) -> Iterator[Databases]:
    with empty_database() as plain, citus_empty_database("relay_citus_reads") as citus:
        for url in (plain, citus):
            migrate(url)  # on the coordinator, layout B (app/db/citus.py)
        for url in (plain, citus):
            with psycopg.connect(url, autocommit=True) as conn:
                fill(conn)
        yield Databases(plain, citus)


def on_both(databases: Databases, read: Callable[[psycopg.Connection], Any]) -> tuple[Any, Any]:
    """What ``read`` answers on one PostgreSQL, and on the cluster."""
    answers = []
    for url in (databases.plain, databases.citus):
        with psycopg.connect(url, autocommit=True) as conn:
            answers.append(read(conn))
    return answers[0], answers[1]


async def on_both_async(databases: Databases, read: Callable[[AsyncConnection], Awaitable[Any]]) -> tuple[Any, Any]:
    answers = []
    for url in (databases.plain, databases.citus):
        async with await AsyncConnection.connect(url, autocommit=True) as conn:
            answers.append(await read(conn))
    return answers[0], answers[1]


class ShardsRead:
    """The shards of ``table`` that the coordinator sent statements to, heard from Citus's
    ``citus.log_remote_commands`` notices on the connections it listens to."""

    def __init__(self, table: str) -> None:
        self._pattern = re.compile(rf"\b{table}_(\d+)\b")
        self.shards: set[int] = set()

    def heard(self, notice: psycopg.errors.Diagnostic) -> None:
        self.shards.update(int(n) for n in self._pattern.findall(notice.message_primary or ""))

    async def listen(self, conn: AsyncConnection) -> None:
        await conn.execute("SET citus.log_remote_commands = on")
        conn.add_notice_handler(self.heard)


def shards_of(url: str, table: str, accounts: list[int]) -> set[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT DISTINCT get_shard_id_for_distribution_column(%s, a) FROM unnest(%s::bigint[]) a",
                            (table, accounts)).fetchall()
    return {shard for (shard,) in rows}


# --- item 12: batched earnings pages --------------------------------------------------------


def _feed_items(n: int) -> list[tuple[int, tuple[datetime, datetime]]]:
    """(account, page item) pairs over the three accounts with earnings, markers spread over their history."""
    now = T0 + timedelta(days=30)
    return [
        (EARNING_ACCOUNTS[i % 3], page_item(FeedQuery(T0, now, marker=int((T0 + timedelta(hours=10 + 4 * i)).timestamp())), now))
        for i in range(n)
    ]


async def _batched_pages(url: str, items, shards: ShardsRead | None = None) -> list:
    """Each (account, item)'s rows through one process's batched reads: all asked at once,
    then each alone (over five runs of the prepared statement on a connection, after which
    a server may plan it anew); both the same."""
    configure = None if shards is None else shards.listen
    async with AsyncConnectionPool(url, min_size=1, max_size=4, kwargs={"autocommit": True},
                                   configure=configure) as pool:
        reads = BatchedReads(pool)
        try:
            statement = pages_statement(None, None)
            together = await asyncio.gather(*(reads.rows(statement, account, item) for account, item in items))
            alone = [await reads.rows(statement, account, item) for account, item in items]
        finally:
            await reads.close()
    assert list(together) == alone
    return alone


async def test_batched_pages_answer_on_the_cluster_as_on_one_postgresql(databases):
    items = _feed_items(24)
    plain = await _batched_pages(databases.plain, items)
    assert all(len(rows) == 11 for rows in plain)  # a page and the row after it
    assert await _batched_pages(databases.citus, items) == plain


async def test_a_batched_page_statement_reads_its_accounts_shard_only(databases):
    own_shards = {account: shards_of(databases.citus, "earnings", [account]) for account in EARNING_ACCOUNTS}
    assert len({frozenset(shards) for shards in own_shards.values()}) > 1  # the accounts are spread
    for account in EARNING_ACCOUNTS:
        shards = ShardsRead("earnings")
        items = [(a, item) for a, item in _feed_items(12) if a == account]
        assert all(await _batched_pages(databases.citus, items, shards))
        assert shards.shards == own_shards[account]


# --- items 13-15: the reads of many accounts ------------------------------------------------


def _without_now(reads):
    """The status reads without the database's clock (each server's own)."""
    return replace(reads, sync=[replace(row, now=T0) for row in reads.sync])


async def test_the_status_pages_reads_answer_as_on_one_postgresql(databases):
    for org in ORGANIZATIONS:
        plain, citus = await on_both_async(databases, lambda conn, org=org: status_reads(conn, org, 30))
        assert _without_now(citus) == _without_now(plain)
    last_runs = {(row.account_id, row.resource): row.last_run_status for row in plain.sync}
    assert last_runs == {(201, "earnings"): None, (201, "posts"): "running"}
    assert sum(day.net for day in plain.days) == 400


def test_relay_sync_status_answers_as_on_one_postgresql(databases):
    plain, citus = on_both(databases, state.status_rows)
    assert citus == plain
    pairs = {(row["account_id"], row["resource"]): row for row in plain}
    assert len(pairs) == len(plain) == 9  # four accounts' tasks, and 202's state without a task
    assert pairs[101, "earnings"]["last_run"] == "failed" and pairs[102, "earnings"]["account_status"] == "paused"
    assert pairs[202, "earnings"]["due_at"] is None and pairs[103, "posts"]["coverage_end"] is None


def test_relay_accounts_list_answers_as_on_one_postgresql(databases):
    for org in (None, 1, 2):
        plain, citus = on_both(databases, lambda conn, org=org: list_accounts(conn, org))
        assert citus == plain
    everyone = on_both(databases, list_accounts)[0]
    assert [(a["id"], a["resources_failing"]) for a in everyone] == [
        (101, 0), (102, 1), (103, 0), (201, 1), (202, 0)
    ]


# --- item 16: statements over chosen pairs --------------------------------------------------

KEYS = pair_keys([(101, "earnings"), (102, "earnings"), (201, "posts"), (103, "posts")])


async def test_coverage_of_pairs_reads_only_their_accounts_shards(databases):
    plain, citus = await on_both_async(databases, lambda conn: state.coverage_of(conn, KEYS))
    assert sorted(citus, key=str) == sorted(plain, key=str) and len(plain) == 3
    async with await AsyncConnection.connect(databases.citus, autocommit=True) as conn:
        shards = ShardsRead("sync_state")
        await shards.listen(conn)
        for keys in (KEYS[:1], KEYS):
            shards.shards.clear()
            await state.coverage_of(conn, keys)
            accounts = sorted({int(key.split(":")[0]) for key in keys})
            assert shards.shards == shards_of(databases.citus, "sync_state", accounts)


async def test_a_schedules_requests_answer_as_on_one_postgresql(databases):
    async def outcome(conn):
        return (await schedules_store.requests_outcome(conn, KEYS, "backfill"),
                await schedules_store.sync_rows(conn, KEYS, "backfill", T0),
                await leases.requests_pending(conn, KEYS, "backfill"),
                await leases.due_or_running(conn, KEYS), await leases.due_or_running(conn, None))

    plain, citus = await on_both_async(databases, outcome)
    assert citus == plain
    assert plain[0] == (2, "101:earnings: account active")  # 101's failed task; 102 is paused
    assert plain[1] == (63, 63)  # the backfills: runs 1, 3, 4 and 5


async def test_the_runs_of_chosen_pairs_are_summed_on_their_accounts_shards(databases):
    async with await AsyncConnection.connect(databases.citus, autocommit=True) as conn:
        shards = ShardsRead("sync_runs")
        await shards.listen(conn)
        await schedules_store.sync_rows(conn, KEYS[:2], "backfill", T0)
    assert shards.shards == shards_of(databases.citus, "sync_runs", [101, 102])


# --- the writers' upkeep (items 1, 9, 10, 11) -------------------------------------------------


def _earning(key: int, day: int, net: float) -> dict:
    return {"id": str(key), "amount": 10.0, "net": net, "fee": 2.0, "status": "done",
            "createdAt": f"2025-05-{day:02d}T10:00:00+00:00"}


def test_the_writers_keep_ordinals_and_rollups_on_the_cluster_as_on_one_postgresql(databases):
    """The same writes (new rows anywhere, rows moved, amounts changed) leave the same
    ordinals and rollup rows, and a recount after a change by hand rebuilds them alike
    (account 299 has no rows of ``fill``)."""
    def history(conn: psycopg.Connection) -> tuple:
        for step in range(12):  # the same pseudo-random history on both
            rows = [item("chargebacks", (step * 7 + k * 13) % 40, (step * 11 + k * 5) % 30) for k in range(6)]
            write_page(conn, "chargebacks", 299, rows)
        write_page(conn, "earnings", 299, [_earning(k, 1 + k % 3, 8.0) for k in range(9)], type="tips")
        write_page(conn, "earnings", 299, [_earning(k, 5, 1.5) for k in range(4)], type="tips")
        conn.execute("DELETE FROM earnings WHERE account_id = 299 AND id = '8'")
        recount(conn, 299)
        return (misnumbered(conn, "chargebacks", 299),
                conn.execute("SELECT id, ord FROM chargebacks WHERE account_id = 299 ORDER BY id").fetchall(),
                conn.execute("SELECT day, type, rows, net, gross FROM earnings_daily "
                             "WHERE account_id = 299 AND rows <> 0 ORDER BY 1, 2").fetchall())

    plain, citus = on_both(databases, history)
    assert citus == plain
    assert plain[0] == 0 and len(plain[1]) > 20
    assert [(day.day, rows) for day, _, rows, _, _ in plain[2]] == [(1, 1), (2, 2), (3, 1), (5, 4)]
