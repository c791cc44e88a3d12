"""The ledger: ``LedgerWriter`` writes each counted request's row after its response, in
batches, with what ended allowances give back to their organizations."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from psycopg_pool import AsyncConnectionPool

from app.gate.allowance import Unused
from app.gate.ledger import CHUNK, LedgerRow, LedgerWriter, merged
from app.gate.state import MinuteView
from tests.fixtures.net import wait_for_async

ROUTE = "/v1/{account_id:int}/chats"


@pytest.fixture
async def pool(database_url, db):
    async with AsyncConnectionPool(database_url, min_size=1, max_size=2, open=False) as pool:
        yield pool


@pytest.fixture
async def writer_of(pool):
    """``writer_of(**options)``: a LedgerWriter on ``pool``, closed after the test (its own
    connection with it)."""
    made: list[LedgerWriter] = []

    def make(**options) -> LedgerWriter:
        made.append(LedgerWriter(options.pop("on", pool), **options))
        return made[-1]

    yield make
    for writer in made:
        await writer.close()


@pytest.fixture
def org(make_org):
    return make_org(credits=10)


@pytest.fixture
def key_id(org, make_key) -> int:
    return make_key(org, full=True).id


def row(org: int, key_id: int, status: int, request_id: str, *, debited: bool = True) -> LedgerRow:
    return (org, key_id, 42, "GET", ROUTE, status, debited, time.time(), request_id, 1)


def ledger(db, org: int) -> list[tuple]:
    return db.execute(
        "SELECT request_id, status, credits, debited, account_id, route FROM usage_ledger "
        "WHERE organization_id = %s ORDER BY id", (org,)
    ).fetchall()


async def test_flush_writes_every_recorded_row_with_its_status(writer_of, db, org, key_id):
    writer = writer_of()
    for i, status in enumerate((200, 424, 402)):
        writer.record(row(org, key_id, status, f"r{i}", debited=status != 402))
    assert ledger(db, org) == []  # record only queues

    await writer.flush()

    assert ledger(db, org) == [
        ("r0", 200, 1, True, 42, ROUTE), ("r1", 424, 1, True, 42, ROUTE), ("r2", 402, 1, False, 42, ROUTE)
    ]
    assert writer.pending == 0


async def test_the_background_task_writes_within_its_interval_and_close_writes_the_rest(writer_of, db, org, key_id):
    writer = writer_of(interval=0.05)
    writer.start()
    try:
        writer.record(row(org, key_id, 200, "first"))
        await wait_for_async(lambda: ledger(db, org), 5, "the first row")
        assert [r[0] for r in ledger(db, org)] == ["first"]
    finally:
        writer.record(row(org, key_id, 500, "last"))
        await writer.close()
    assert [(r[0], r[1]) for r in ledger(db, org)] == [("first", 200), ("last", 500)]


async def test_a_full_batch_wakes_the_writer_before_its_interval(writer_of, db, org, key_id):
    writer = writer_of(interval=60, batch=3)
    writer.start()
    try:
        for i in range(3):
            writer.record(row(org, key_id, 404, f"r{i}"))
        await wait_for_async(lambda: len(ledger(db, org)) >= 3, 5, "the batch of three")
        assert len(ledger(db, org)) == 3
    finally:
        await writer.close()


async def test_a_batch_larger_than_a_chunk_lands_whole_and_in_order(writer_of, db, org, key_id):
    writer = writer_of()
    count = 2 * CHUNK + 50  # three chunks, the last one short
    for i in range(count):
        writer.record(row(org, key_id, 200, f"r{i}"))

    await writer.flush()

    assert [r[0] for r in ledger(db, org)] == [f"r{i}" for i in range(count)]


async def test_rows_are_written_as_queued_to_the_microsecond_an_impossible_account_as_null(
    writer_of, db, org, key_id
):
    at = 1_764_000_000.123456  # 2025-11-24 16:00:00.123456 UTC
    odd_route = "/v1/{account_id:int}/with\ta\\backslash"
    writer = writer_of()
    writer.record((org, key_id, 2**63, "GET", odd_route, 404, True, at, "r1", 1))
    writer.record((org, key_id, None, "POST", ROUTE, 200, False, at + 1.5, None, 0))

    await writer.flush()

    assert db.execute(
        "SELECT account_id, method, route, status, debited, credits, request_id, "
        "extract(epoch FROM created_at)::numeric(20, 6) FROM usage_ledger WHERE organization_id = %s ORDER BY id",
        (org,),
    ).fetchall() == [
        (None, "GET", odd_route, 404, True, 1, "r1", Decimal("1764000000.123456")),
        (None, "POST", ROUTE, 200, False, 0, None, Decimal("1764000001.623456")),
    ]


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


async def test_requests_settling_at_once_share_one_write_that_begins_after_their_call(writer_of, db, org, key_id):
    writer = writer_of(interval=60)
    writer.record(row(org, key_id, 200, "before"))
    first = asyncio.ensure_future(writer.flush())  # a write in progress when they call
    await asyncio.sleep(0)
    writer.record(row(org, key_id, 200, "queued meanwhile"))

    await asyncio.gather(first, *(writer.settle() for _ in range(50)))

    # The write in progress began before their calls; one more serves all fifty.
    assert writer.begun == 2
    assert [r[0] for r in ledger(db, org)] == ["before", "queued meanwhile"]


async def test_an_allowances_rest_goes_back_to_its_windows_and_the_balance(writer_of, db, org):
    minute, day = _window_starts(db, org)
    given = [Unused(org, minute, day, 3, 3)]
    writer = writer_of(unused=lambda **_: given)

    await writer.flush()

    assert counters(db, org) == (2, 2, 8)


async def test_a_past_windows_rest_goes_back_to_the_balance_only(writer_of, db, org):
    minute, day = _window_starts(db, org)
    given = [Unused(org, minute - timedelta(minutes=1), day - timedelta(days=1), 3, 3)]
    writer = writer_of(unused=lambda **_: given)

    await writer.flush()

    assert counters(db, org) == (5, 5, 8)  # those windows are history: their counts stay


def _end_ledger_connections(db) -> int:
    """End the ledger writer's server connection, as a database restart would."""
    return len(db.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'creator-relay-ledger' AND datname = current_database()"
    ).fetchall())


async def test_a_failed_write_keeps_rows_and_returns_for_the_next_attempt(writer_of, db, org, key_id):
    minute, day = _window_starts(db, org)
    handed: list[list[Unused]] = []
    written: list[tuple] = []  # the counters each time the writer said all it was handed is written
    writer = writer_of(unused=lambda **_: handed.pop() if handed else [],
                       written=lambda: written.append(counters(db, org)))
    writer.record(row(org, key_id, 200, "a"))
    await writer.flush()
    assert _end_ledger_connections(db) == 1
    writer.record(row(org, key_id, 400, "b"))
    handed.append([Unused(org, minute, day, 2, 2)])

    await writer.flush()  # its connection is gone: the write fails whole

    assert writer.pending == 1 and not handed
    assert [r[0] for r in ledger(db, org)] == ["a"] and counters(db, org) == (5, 5, 5)
    assert written == [(5, 5, 5)]  # after the first write only: the rest is not back yet
    await writer.flush()  # on a new connection, the kept row and the kept give-back land
    assert [(r[0], r[1]) for r in ledger(db, org)] == [("a", 200), ("b", 400)]
    assert counters(db, org) == (3, 3, 7)
    assert written == [(5, 5, 5), (3, 3, 7)]


async def test_the_writer_takes_no_connection_from_the_pool(writer_of, database_url, db, org, key_id):
    async with AsyncConnectionPool(database_url, min_size=1, max_size=1, timeout=1) as small:
        writer = writer_of(on=small)
        async with small.connection():  # every pooled connection serving a page
            writer.record(row(org, key_id, 200, "a"))
            await writer.flush()
        await writer.close()
    assert [r[0] for r in ledger(db, org)] == ["a"]


async def test_failing_writes_back_off_and_a_write_that_lands_ends_it(writer_of, database_url, db, org, key_id):
    nowhere = AsyncConnectionPool("postgresql://postgres@127.0.0.1:1/none", open=False, timeout=2)
    down = writer_of(on=nowhere, interval=0.1)
    down.record(row(org, key_id, 200, "a"))
    pauses = []
    for _ in range(3):
        await down.flush()  # connection refused: nobody listens on port 1
        pauses.append(down.pause())
    assert down.pending == 1 and pauses == [0.2, 0.4, 0.8]
    for _ in range(10):
        await down.flush()
    assert down.pause() == 5.0  # at most

    up = writer_of(interval=0.1)
    up.failures = 4
    up.record(row(org, key_id, 200, "b"))
    await up.flush()
    assert up.failures == 0 and up.pause() == 0.1
    assert [r[0] for r in ledger(db, org)] == ["b"]


async def test_what_goes_back_from_many_failed_requests_is_one_update_per_organization_and_window(
    writer_of, db, org
):
    minute, day = _window_starts(db, org)
    # three failed requests; the last one's credit had not come off the balance
    back = [Unused(org, minute, day, 1, 1), Unused(org, minute, day, 1, 1), Unused(org, minute, day, 1, 0)]
    assert merged(back) == [Unused(org, minute, day, 3, 2)]
    writer = writer_of()
    for one in back:
        writer.give_back(one)

    await writer.flush()
    assert counters(db, org) == (2, 2, 7)


async def test_a_status_view_answered_5xx_gives_its_minute_back_but_no_day_and_no_credit(writer_of, db, org, key_id):
    minute, _ = _window_starts(db, org)
    writer = writer_of()
    scope = {"method": "GET", "path_template": "/status", "state": {}}

    MinuteView(org, key_id, minute.timestamp() + 1.5, scope, writer).finish(503)
    await writer.flush()

    assert ledger(db, org) == [(None, 503, 0, False, None, "/status")]
    assert counters(db, org) == (4, 5, 5)  # the day and the balance never had it
