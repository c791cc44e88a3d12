"""The ledger: ``LedgerWriter`` writes each counted request's row after its response, in
batches, with what ended allowances give back to their organizations."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta

import pytest
from psycopg_pool import AsyncConnectionPool

from app.gate.allowance import Unused
from app.gate.ledger import LedgerWriter, copy_line

ROUTE = "/v1/{account_id:int}/chats"


@pytest.fixture
async def pool(database_url, db):
    async with AsyncConnectionPool(database_url, min_size=1, max_size=2, open=False) as pool:
        yield pool


@pytest.fixture
def org(make_org):
    return make_org(credits=10)


@pytest.fixture
def key_id(org, make_key) -> int:
    return make_key(org, full=True).id


def row(org: int, key_id: int, status: int, request_id: str, *, debited: bool = True) -> str:
    return copy_line(org, key_id, 42, "GET", ROUTE, status, debited, time.time(), request_id)


def ledger(db, org: int) -> list[tuple]:
    return db.execute(
        "SELECT request_id, status, credits, debited, account_id, route FROM usage_ledger "
        "WHERE organization_id = %s ORDER BY id", (org,)
    ).fetchall()


async def test_flush_writes_every_recorded_row_with_its_status(pool, db, org, key_id):
    writer = LedgerWriter(pool)
    for i, status in enumerate((200, 424, 402)):
        writer.record(row(org, key_id, status, f"r{i}", debited=status != 402))
    assert ledger(db, org) == []  # record only queues

    await writer.flush()

    assert ledger(db, org) == [
        ("r0", 200, 1, True, 42, ROUTE), ("r1", 424, 1, True, 42, ROUTE), ("r2", 402, 1, False, 42, ROUTE)
    ]
    assert writer.pending == 0


async def test_the_background_task_writes_within_its_interval_and_close_writes_the_rest(pool, db, org, key_id):
    writer = LedgerWriter(pool, interval=0.05)
    writer.start()
    try:
        writer.record(row(org, key_id, 200, "first"))
        deadline = time.monotonic() + 5
        while not ledger(db, org) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert [r[0] for r in ledger(db, org)] == ["first"]
    finally:
        writer.record(row(org, key_id, 500, "last"))
        await writer.close()
    assert [(r[0], r[1]) for r in ledger(db, org)] == [("first", 200), ("last", 500)]


async def test_a_full_batch_wakes_the_writer_before_its_interval(pool, db, org, key_id):
    writer = LedgerWriter(pool, interval=60, batch=3)
    writer.start()
    try:
        for i in range(3):
            writer.record(row(org, key_id, 404, f"r{i}"))
        deadline = time.monotonic() + 5
        while len(ledger(db, org)) < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert len(ledger(db, org)) == 3
    finally:
        await writer.close()


def _window_starts(db, org: int) -> tuple[datetime, datetime]:
    """Open both windows of ``org`` now with 5 admissions counted and 5 credits taken (as
    the gate statement leaves them after reserving an allowance of 5)."""
    return db.execute(
        "UPDATE organizations SET minute_window = date_trunc('minute', now()), minute_used = 5, "
        "day_window = date_trunc('day', now(), 'UTC'), day_used = 5, credit_balance = credit_balance - 5 "
        "WHERE id = %s RETURNING minute_window, day_window", (org,)
    ).fetchone()


def counters(db, org: int) -> tuple[int, int, int]:
    return db.execute(
        "SELECT minute_used, day_used, credit_balance FROM organizations WHERE id = %s", (org,)
    ).fetchone()


async def test_an_allowances_rest_goes_back_to_its_windows_and_the_balance(pool, db, org):
    minute, day = _window_starts(db, org)
    given = [Unused(org, minute, day, 3)]
    writer = LedgerWriter(pool, unused=lambda **_: given)

    await writer.flush()

    assert counters(db, org) == (2, 2, 8)


async def test_a_past_windows_rest_goes_back_to_the_balance_only(pool, db, org):
    minute, day = _window_starts(db, org)
    given = [Unused(org, minute - timedelta(minutes=1), day - timedelta(days=1), 3)]
    writer = LedgerWriter(pool, unused=lambda **_: given)

    await writer.flush()

    assert counters(db, org) == (5, 5, 8)  # those windows are history: their counts stay


async def test_a_failed_write_keeps_rows_and_returns_for_the_next_attempt(database_url, db, org, key_id):
    minute, day = _window_starts(db, org)
    handed = [[Unused(org, minute, day, 2)]]
    kept: list[Unused] = []
    closed = AsyncConnectionPool(database_url, min_size=1, max_size=1, open=False)
    writer = LedgerWriter(closed, unused=lambda **_: handed.pop() if handed else kept[:], give_back=kept.extend)
    writer.record(row(org, key_id, 200, "a"))
    writer.record(row(org, key_id, 400, "b"))

    await writer.flush()  # the pool is not open: the write fails

    assert writer.pending == 2 and ledger(db, org) == [] and len(kept) == 1
    assert counters(db, org) == (5, 5, 5)
    await closed.open()
    try:
        await writer.flush()
    finally:
        await closed.close()
    assert [(r[0], r[1]) for r in ledger(db, org)] == [("a", 200), ("b", 400)]
    assert counters(db, org) == (3, 3, 7)
