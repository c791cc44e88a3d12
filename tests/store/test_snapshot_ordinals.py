"""Offset pages read by ordinal (``ord``, kept by the writers: app/store/upkeep.py) equal the
pages of ``ORDER BY created_at DESC, id DESC OFFSET n LIMIT m``, whatever the writers wrote
and in whatever order: equal ``created_at`` seconds, late rows in the middle, moved rows,
backfills walking back in time, concurrent writers of one account. The renumbering's work
per write is the write's rows when rows arrive at either end (counted, not timed), and a
deep page reads ``limit + 1`` rows, not ``offset`` of them (EXPLAIN).
"""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.store.snapshot import _NEWEST_SQL, _PAGE_SQL, SnapshotQuery, snapshot_page
from app.store.source import Coverage
from tests.fixtures.store import write_page
from tests.fixtures.threads import run_in_threads

TABLES = ["chargebacks", "payout_requests"]
T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = T0 + timedelta(days=365)
ACCOUNTS = (7101, 7102)

# The paging the ordinals replace: the oracle.
OFFSET_SQL = """
SELECT payload::text FROM {table}
WHERE account_id = %s AND created_at >= %s AND created_at <= %s
ORDER BY created_at DESC, id DESC OFFSET %s LIMIT %s
"""


def at(second: int) -> datetime:
    return T0 + timedelta(seconds=second)


def item(table: str, key: int, second: int) -> dict:
    """An upstream row of ``table`` with id ``key`` filed ``second`` seconds after T0."""
    created = at(second).isoformat()
    if table == "chargebacks":
        return {"id": key, "createdAt": created, "paymentType": "tip", "payment": {"id": str(key), "amount": 1}}
    return {"invoiceId": f"INV-{key:05d}", "createdAt": created, "amount": 1, "state": "done"}


def misnumbered(db: psycopg.Connection, table: str, account_id: int) -> int:
    """Rows whose ordinal is not the first ordinal plus their rank in (created_at, id) order."""
    return db.execute(
        f"""SELECT count(*) FILTER (WHERE ord IS NULL OR ord <> first + rank - 1) FROM (
                SELECT ord, first_value(ord) OVER w AS first, row_number() OVER w AS rank
                FROM {table} WHERE account_id = %s WINDOW w AS (ORDER BY created_at, id)) x""",
        (account_id,),
    ).fetchone()[0]


def offset_page(db: psycopg.Connection, table: str, account_id: int, start, upper, offset: int, limit: int) -> list:
    rows = db.execute(OFFSET_SQL.format(table=table), (account_id, start, upper, offset, limit + 1)).fetchall()
    return [json.loads(r[0]) for r in rows]


async def _ordinal_pages(url: str, table: str, account_id: int, queries: list[SnapshotQuery]) -> list[dict]:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        coverage = Coverage(start=T0, end=NOW, synced_at=NOW)
        return [await snapshot_page(conn, table, account_id, q, now=NOW, coverage=coverage) for q in queries]


def ordinal_pages(url: str, table: str, account_id: int, queries: list[SnapshotQuery]) -> list[dict]:
    """``snapshot_page`` itself (the route's store read) for each query."""
    return asyncio.run(_ordinal_pages(url, table, account_id, queries))


def assert_pages_match(db, url: str, table: str, account_id: int, windows: list[tuple]) -> None:
    """Each (start, end, pin, offset, limit), seconds after T0, pages alike both ways."""
    queries = [SnapshotQuery(start=at(s), end=at(e), offset=o, limit=n, marker=int(at(p).timestamp()))
               for s, e, p, o, n in windows]
    for query, page in zip(queries, ordinal_pages(url, table, account_id, queries), strict=True):
        upper = min(query.end, NOW, datetime.fromtimestamp(query.marker, UTC))
        expected = offset_page(db, table, account_id, query.start, upper, query.offset, query.limit)
        got = [json.loads(bytes(raw)) for raw in page["list"]]
        assert got == expected[: query.limit], (query, got, expected)
        assert page["hasMore"] == (len(expected) > query.limit)


# --- random histories ---------------------------------------------------------------------

KEYS = st.integers(1, 60)
SECONDS = st.integers(0, 30)  # few distinct seconds: many rows share one
OPERATIONS = st.lists(
    st.one_of(
        # The shared mapping's write (the sync's and the write-back's): new rows anywhere,
        # existing ones moved when their createdAt changed.
        st.tuples(st.sampled_from(ACCOUNTS), st.lists(st.tuples(KEYS, SECONDS), min_size=1, max_size=12)),
    ),
    min_size=1, max_size=10,
)
WINDOWS = st.lists(
    st.tuples(st.integers(-1, 31), st.integers(-1, 31), st.integers(-1, 31), st.integers(0, 50), st.integers(1, 12)),
    min_size=6, max_size=12,
)


def apply(db: psycopg.Connection, table: str, operation: tuple) -> None:
    account_id, rows = operation
    write_page(db, table, account_id, [item(table, key, second) for key, second in rows])


@pytest.mark.parametrize("table", TABLES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=OPERATIONS, windows=WINDOWS)
def test_ordinal_pages_equal_offset_pages_after_any_history(db, database_url, table, operations, windows):
    db.execute(f"TRUNCATE {table}")
    for operation in operations:
        apply(db, table, operation)
    for account_id in ACCOUNTS:
        assert misnumbered(db, table, account_id) == 0
        assert_pages_match(db, database_url, table, account_id, windows)


@pytest.mark.parametrize("table", TABLES)
def test_concurrent_writers_of_one_account_keep_it_numbered(db, database_url, table):
    """Four writers upsert overlapping rows anywhere in time, some two statements to a
    transaction: no deadlock, no duplicate or missing ordinal."""
    account_id = ACCOUNTS[0]

    def writer(seed: int) -> None:
        rng = random.Random(seed)
        with psycopg.connect(database_url) as conn:
            for _ in range(15):
                for _ in range(rng.choice((1, 2))):
                    batch = [item(table, rng.randint(1, 300), rng.randint(0, 400)) for _ in range(rng.randint(1, 20))]
                    write_page(conn, table, account_id, batch)
                    conn.execute("SELECT pg_sleep(0.002)")
                conn.commit()

    # A deadlock or a duplicate ordinal would be raised by a writer.
    assert run_in_threads(writer, 4) == []
    assert db.execute(f"SELECT count(*) FROM {table} WHERE account_id = %s", (account_id,)).fetchone()[0] > 100
    assert misnumbered(db, table, account_id) == 0
    windows = [(0, 400, 400, o, n) for o in (0, 1, 37, 150, 290) for n in (1, 10)] + [(50, 300, 250, 20, 10)]
    assert_pages_match(db, database_url, table, account_id, windows)


# --- the renumbering's cost ----------------------------------------------------------------


def _batch(table: str, first_second: int, first_key: int, rows: int) -> list[dict]:
    """``rows`` upstream rows one second apart from ``first_second``, keys from ``first_key``."""
    return [item(table, first_key + n, first_second + n) for n in range(rows)]


def _fill(db: psycopg.Connection, table: str, account_id: int, rows: int) -> None:
    """``rows`` rows one second apart starting at second 1,000,000 (room on both sides)."""
    write_page(db, table, account_id, _batch(table, 1_000_000, 1, rows))


def updated_by(url: str, table: str, account_id: int, rows: list[dict], *, unseen: int = 0) -> int:
    """Rows the write updated (the changed row itself and the renumbering), from the
    transaction's own statistics: a count, not a timing. The rows it read (index fetches
    and sequential reads) must stay within a small multiple of those it wrote, plus a
    constant: no part of the write may read the account's other rows -- except, where the
    statistics never saw the account, one read of its ``unseen`` rows by the look-up of the
    page's stored versions (docs/data.md, "Ordinals"), never one per row."""
    with psycopg.connect(url) as conn:
        write_page(conn, table, account_id, rows)
        inserted, updated, read = conn.execute(
            "SELECT n_tup_ins, n_tup_upd, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) "
            "FROM pg_stat_xact_user_tables WHERE relname = %s", (table,)).fetchone()
        conn.commit()
        assert read <= 10 * (inserted + updated) + 50 + unseen, (read, inserted, updated)
        return updated


def _statistics_of(db: psycopg.Connection, table: str, account_id: int, first_second: int) -> None:
    """Leave ``table`` empty with the statistics of 300 rows of ``account_id`` from
    ``first_second`` on: what the planner knows when the rows it plans for came later."""
    key = "g" if table == "chargebacks" else "'INV-' || lpad(g::text, 7, '0')"
    db.execute(f"""INSERT INTO {table} (account_id, id, created_at, payload)
                   SELECT %s, {key}, %s + g * interval '1 s', '{{}}'::jsonb FROM generate_series(1, 300) g""",
               (account_id, at(first_second)))
    db.execute(f"ANALYZE {table}")
    db.execute(f"DELETE FROM {table}")


# Statistics the planner may hold: none, another account's rows (this account has none),
# this account's rows far older than those written now (every range looks like all of it).
STALE = {"none": None, "another account": (ACCOUNTS[1], 1_000_000), "older rows": (ACCOUNTS[0], 0)}


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize(("stored", "statistics"), [(2_000, "none"), (30_000, "none"),
                                                    (30_000, "another account"), (30_000, "older rows")])
def test_rows_at_either_end_cost_their_own_number_whatever_the_table_size(db, database_url, table, stored,
                                                                          statistics):
    account_id = ACCOUNTS[0]
    if STALE[statistics]:
        _statistics_of(db, table, *STALE[statistics])
    _fill(db, table, account_id, stored)
    # Statistics that never saw the account: "another account" here, or whatever earlier
    # tests left in the shared database for "none".
    unseen = stored + 2_000
    # A backfill walking back in time: batches of 500 rows, each older than all stored.
    for step in range(1, 4):
        older = _batch(table, 1_000_000 - step * 500, 9_000_000 + step * 1000, 500)
        assert updated_by(database_url, table, account_id, older, unseen=unseen) == 500
    # The incremental sync appending newer rows.
    newer = _batch(table, 2_000_000, 8_000_000, 300)
    assert updated_by(database_url, table, account_id, newer, unseen=unseen) == 300
    # A late row of the lookback, 5 rows under the newest: it and the 5 rows above it.
    late = _batch(table, 2_000_000 + 295, 7_000_000, 1)
    assert updated_by(database_url, table, account_id, late, unseen=unseen) == 6
    # A row moved 3 rows down: the write's update of it, then its new ordinal and the 3 it
    # passed, not the thousands under it.
    moved = item(table, 8_000_290, 0)
    moved["createdAt"] = (at(2_000_286) + timedelta(milliseconds=500)).isoformat()
    assert updated_by(database_url, table, account_id, [moved], unseen=unseen) == 1 + 4
    # A payload-only change moves nothing and renumbers nothing (beyond the row itself).
    touched = item(table, 8_000_000, 2_000_000)
    touched["amount" if table == "payout_requests" else "paymentType"] = 2
    assert updated_by(database_url, table, account_id, [touched], unseen=unseen) == 1
    assert misnumbered(db, table, account_id) == 0


def _actual_rows(plan: dict) -> list[int]:
    found = [plan["Actual Rows"] * plan.get("Actual Loops", 1)]
    for child in plan.get("Plans", ()):
        found += _actual_rows(child)
    return found


@pytest.mark.parametrize("table", TABLES)
def test_a_deep_page_reads_limit_plus_one_rows_not_the_offset(db, table):
    account_id = ACCOUNTS[0]
    _fill(db, table, account_id, 30_000)
    db.execute(f"ANALYZE {table}")
    statement = (_NEWEST_SQL + _PAGE_SQL).format(table=table)
    params = {"account_id": account_id, "start": at(0), "upper": at(2_000_000), "offset": 25_000, "rows": 11}
    plan = db.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + statement, params).fetchone()[0][0]["Plan"]
    assert max(_actual_rows(plan)) <= 11, plan
    assert len(db.execute(statement, params).fetchall()) == 11


# --- through the route --------------------------------------------------------------------

ROUTES = [("/v1/{account}/payouts/chargebacks", "chargebacks", "/payouts/chargebacks"),
          ("/v1/{account}/payouts/requests", "payout_requests", "/payouts/requests")]


@pytest.mark.parametrize("route, table, path", ROUTES)
def test_the_route_answers_the_offset_pages(api_caller, route, table, path):
    """Filled from the sandbox through the shared mapping, the store's pages are the pages
    the OFFSET query gives, at every offset, for several windows."""
    api_caller.sandbox.configure_account(api_caller.account_id, chargebacks=95, payout_requests=57, history_days=400)
    api_caller.store.fill_snapshot(table, path)
    assert misnumbered(api_caller.db, table, api_caller.account_id) == 0
    for start in ("1970-01-01 00:00:00", "2025-06-01 00:00:00"):
        first = api_caller.ok(route, start_date=start)
        assert first["_meta"]["_cache"]["source"] == "store"
        pin = first["data"]["marker"]
        limit = 7 if table == "chargebacks" else 10
        for offset in (0, 1, 6, 7, 30, 50, 56, 94, 95, 200):
            params = {"start_date": start, "offset": offset, "marker": pin}
            if table == "chargebacks":
                params["limit"] = limit
            page = api_caller.ok(route, **params)["data"]
            expected = offset_page(api_caller.db, table, api_caller.account_id,
                                   datetime.fromisoformat(start).replace(tzinfo=UTC),
                                   datetime.fromtimestamp(pin, UTC), offset, limit)
            assert page["list"] == expected[:limit]
            assert page["hasMore"] == (len(expected) > limit)


# --- the migration ------------------------------------------------------------------------

REVISION = "0010_snapshot_ordinals"


def test_the_migration_numbers_stored_rows_in_batches_and_downgrades(empty_database):
    """130,000 stored rows over three accounts (batches of 50,000 cross account borders,
    equal seconds everywhere): each account numbered 1.. in (created_at, id) order."""
    from alembic.script import ScriptDirectory

    from app.db.migrate import alembic_config, downgrade, upgrade

    with empty_database() as url:
        before = ScriptDirectory.from_config(alembic_config(url)).get_revision(REVISION).down_revision
        upgrade(url, before)
        with psycopg.connect(url, autocommit=True) as conn:
            for account_id, rows in ((1, 70_000), (2, 3), (3, 59_997)):
                conn.execute(
                    """INSERT INTO chargebacks (account_id, id, created_at, payload)
                       SELECT %s, g, %s + (g %% 977) * interval '1 s', '{}'::jsonb
                       FROM generate_series(1, %s) g""", (account_id, T0, rows))
            conn.execute(  # as a writer of this revision would (today's renumbers ordinals)
                """INSERT INTO payout_requests (account_id, id, created_at, payload)
                   SELECT 1, 'INV-' || lpad(k::text, 5, '0'), %s + (k %% 5) * interval '1 s', '{}'::jsonb
                   FROM generate_series(0, 39) k""", (T0,))
        upgrade(url, REVISION)
        with psycopg.connect(url, autocommit=True) as conn:
            for table, account_id in (("chargebacks", 1), ("chargebacks", 2), ("chargebacks", 3),
                                      ("payout_requests", 1)):
                assert misnumbered(conn, table, account_id) == 0
                first = conn.execute(f"SELECT min(ord) FROM {table} WHERE account_id = %s", (account_id,))
                assert first.fetchone()[0] == 1
            # The writers renumber from here on: two new rows at either end, and their range.
            conn.execute("INSERT INTO chargebacks (account_id, id, created_at, payload) "
                         "VALUES (2, 5, %(lo)s, '{}'), (2, 6, %(hi)s, '{}')", {"lo": at(-10), "hi": at(10**6)})
            conn.execute("SELECT ord_chargebacks_renumber(2, %(lo)s, 5, %(hi)s, 6)", {"lo": at(-10), "hi": at(10**6)})
            assert misnumbered(conn, "chargebacks", 2) == 0
        downgrade(url, before)
        with psycopg.connect(url, autocommit=True) as conn:
            columns = conn.execute("SELECT count(*) FROM information_schema.columns "
                                   "WHERE column_name = 'ord' AND table_name IN ('chargebacks', 'payout_requests')")
            assert columns.fetchone()[0] == 0
            functions = conn.execute("SELECT count(*) FROM pg_proc WHERE proname LIKE 'ord\\_%'")
            assert functions.fetchone()[0] == 0
            conn.execute(  # no trigger left behind
                "INSERT INTO chargebacks (account_id, id, created_at, payload) VALUES (2, 7, %s, '{}')", (T0,))
