"""The ledger's final statuses: ``StatusRecorder`` writes them after the response, in batches."""

from __future__ import annotations

import asyncio
import time

import pytest
from psycopg_pool import AsyncConnectionPool

from app.gate.keys import key_digest
from app.gate.ledger import StatusRecorder
from app.gate.statement import MeterRequest, run_gate_statement


@pytest.fixture
async def pool(database_url, db):
    async with AsyncConnectionPool(database_url, min_size=1, max_size=2, open=False) as pool:
        yield pool


@pytest.fixture
async def ledger_ids(pool, make_org, make_key, connect_account) -> list[int]:
    """Three counted requests' ledger rows, status not yet known (NULL)."""
    org = make_org()
    connect_account(org, 42)
    request = MeterRequest.of(key_digest(make_key(org)), "api_chats_list", 42, "GET", "/v1/{account_id:int}/chats")
    async with pool.connection() as conn:
        await conn.set_autocommit(True)
        results = await run_gate_statement(conn, [request] * 3)
    return [r.ledger_id for r in results]


def statuses(db, ids: list[int]) -> list[int | None]:
    rows = dict(db.execute("SELECT id, status FROM usage_ledger WHERE id = ANY(%s)", (ids,)).fetchall())
    return [rows[i] for i in ids]


async def test_flush_writes_every_recorded_status_to_its_row(pool, db, ledger_ids):
    recorder = StatusRecorder(pool)
    for ledger_id, status in zip(ledger_ids, (200, 424, 402), strict=True):
        recorder.record(ledger_id, status)
    assert statuses(db, ledger_ids) == [None, None, None]  # record only queues

    await recorder.flush()

    assert statuses(db, ledger_ids) == [200, 424, 402]
    assert recorder.pending == 0


async def test_the_background_task_writes_within_its_interval_and_close_writes_the_rest(pool, db, ledger_ids):
    recorder = StatusRecorder(pool, interval=0.05)
    recorder.start()
    try:
        recorder.record(ledger_ids[0], 200)
        deadline = time.monotonic() + 5
        while statuses(db, ledger_ids)[0] is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert statuses(db, ledger_ids)[0] == 200
    finally:
        recorder.record(ledger_ids[1], 500)
        await recorder.close()
    assert statuses(db, ledger_ids) == [200, 500, None]


async def test_a_full_batch_wakes_the_writer_before_its_interval(pool, db, ledger_ids):
    recorder = StatusRecorder(pool, interval=60, batch=3)
    recorder.start()
    try:
        for ledger_id in ledger_ids:
            recorder.record(ledger_id, 404)
        deadline = time.monotonic() + 5
        while statuses(db, ledger_ids) != [404] * 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert statuses(db, ledger_ids) == [404] * 3
    finally:
        await recorder.close()


async def test_a_failed_write_keeps_the_statuses_for_the_next_attempt(database_url, db, pool, ledger_ids):
    closed = AsyncConnectionPool(database_url, min_size=1, max_size=1, open=False)
    recorder = StatusRecorder(closed)
    recorder.record(ledger_ids[0], 200)
    recorder.record(ledger_ids[1], 400)

    await recorder.flush()  # the pool is not open: the write fails

    assert recorder.pending == 2 and statuses(db, ledger_ids) == [None, None, None]
    await closed.open()
    try:
        await recorder.flush()
    finally:
        await closed.close()
    assert statuses(db, ledger_ids) == [200, 400, None]
