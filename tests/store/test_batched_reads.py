"""Batched store reads: concurrent feed pages of one account share one statement, and each
page is what it would have been alone."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from app.store.batched import BatchedReads
from app.store.earnings_feed import FeedQuery, page_item, pages_statement

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _earnings(db, account_id: int, rows: int) -> None:
    """``rows`` earnings of ``account_id`` over a year, several sharing each second."""
    db.execute(
        "INSERT INTO earnings (account_id, id, type, created_at, amount, net, fee, payload) "
        "SELECT %s, (%s::bigint * 1000000 + i)::text, CASE WHEN i %% 3 = 0 THEN 'tips' ELSE 'post' END, "
        "timestamptz '2025-01-01' + (i / 3) * interval '1 hour', 1, 1, 0, %s "
        "FROM generate_series(1, %s) i",
        (account_id, account_id, Jsonb({"account": account_id}), rows),
    )


async def _pages(pool, items, lane=(None, None), **batching) -> tuple[list[list[tuple]], BatchedReads]:
    """The rows of each (account, item) of ``items``, all asked at once."""
    reads = BatchedReads(pool, **batching)
    try:
        statement = pages_statement(*lane)
        pages = await asyncio.gather(*(reads.rows(statement, account, item) for account, item in items))
        return list(pages), reads
    finally:
        await reads.close()


def _items(accounts: list[int], n: int) -> list[tuple]:
    rng = random.Random(7)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    items = []
    for _ in range(n):
        marker = int((datetime(2025, 1, 1, tzinfo=UTC) + timedelta(hours=rng.randint(0, 400))).timestamp())
        items.append((rng.choice(accounts), page_item(FeedQuery(start, NOW, marker=marker), NOW)))
    return items


async def test_concurrent_pages_share_statements_and_each_is_what_it_is_alone(db, database_url):
    for account in (501, 502):
        _earnings(db, account, 2000)
    items = _items([501, 502], 40)
    async with AsyncConnectionPool(database_url, min_size=1, max_size=4, kwargs={"autocommit": True}) as pool:
        together, reads = await _pages(pool, items)
        alone = [(await _pages(pool, [item]))[0][0] for item in items]

    assert together == alone
    assert all(len(rows) == 11 for rows in together)  # a page and the row after it
    assert 2 <= reads.statements < len(items) // 2 and reads.items == len(items)
    for (account, (_start, bound)), rows in zip(items, together, strict=True):
        seconds = [second for second, _, _ in rows]
        assert seconds == sorted(seconds, reverse=True) and seconds[0] < bound.timestamp()
        assert {row_id[:3] for _, row_id, _ in rows} == {str(account)}  # its own account's rows


async def test_a_lane_reads_only_its_rows(db, database_url):
    _earnings(db, 503, 900)
    items = _items([503], 5)
    async with AsyncConnectionPool(database_url, min_size=1, max_size=2, kwargs={"autocommit": True}) as pool:
        pages, _ = await _pages(pool, items, lane=("tips", None))
    ids = {row_id for rows in pages for _, row_id, _ in rows}
    types = dict(db.execute("SELECT id, type FROM earnings WHERE id = ANY(%s)", (list(ids),)).fetchall())
    assert ids and set(types.values()) == {"tips"}


async def test_the_coalescers_of_accounts_no_longer_read_are_dropped(db, database_url):
    accounts = list(range(510, 516))
    for account in accounts:
        _earnings(db, account, 30)
    statement = pages_statement(None, None)
    async with AsyncConnectionPool(database_url, min_size=1, max_size=2, kwargs={"autocommit": True}) as pool:
        reads = BatchedReads(pool, keep=3)
        try:
            for account, item in _items(accounts, 12):
                assert await reads.rows(statement, account, item)
                assert reads.coalescers <= 3
        finally:
            await reads.close()


def test_each_batched_page_and_a_lone_one_is_one_index_range_scan(db):
    _earnings(db, 504, 3000)
    db.execute("ANALYZE earnings")
    batch = '[["2024-01-01T00:00:00Z", "2025-03-01T00:00:00Z"], ["2024-01-01T00:00:00Z", "2025-02-01T00:00:00Z"]]'
    statement = pages_statement(None, None)
    one = '["2024-01-01T00:00:00Z", "2025-03-01T00:00:00Z"]'
    for text, params in ((statement.many, {"account": 504, "batch": batch}), (statement.one, {"account": 504, "item": one})):
        plan = "\n".join(r[0] for r in db.execute("EXPLAIN " + text, params))
        assert "Index Scan Backward using ix_earnings_account_id_created_at_id" in plan, plan
        assert "Seq Scan on earnings" not in plan, plan


def test_the_one_item_statement_answers_what_the_batched_one_answers_for_that_item(db):
    _earnings(db, 505, 900)  # several rows share each second: the order within one is by id
    statement = pages_statement(None, None)
    for _, (start, bound) in _items([505], 8):
        item = Jsonb([start.isoformat(), bound.isoformat()])
        one = db.execute(statement.one, {"account": 505, "item": item}).fetchall()
        many = db.execute(statement.many, {"account": 505, "batch": Jsonb([item.obj])}).fetchall()
        assert one == many and len(one) == 11
