"""The writer's merge and the task leases, against PostgreSQL directly."""

from __future__ import annotations

import asyncio
import uuid

from psycopg import AsyncConnection

from sync import leases
from sync.resources import PAYOUT_REQUESTS
from sync.writers import PageWriter, WriteCounts
from tests.sync.helpers import add_account


def _payout(n: int, state: str = "pending") -> dict:
    return {"invoiceId": f"INV-{n:07d}", "createdAt": f"2026-01-0{n % 9 + 1}T10:00:00+00:00",
            "amount": 12.5 + n, "currency": "USD", "state": state, "rejectReason": None}


async def _write(url: str, rows: list, run_id: int) -> WriteCounts:
    writer = PageWriter(PAYOUT_REQUESTS)
    async with await AsyncConnection.connect(url, autocommit=True) as conn:
        async with conn.transaction():
            counts, *_ = await writer.write_page(conn, rows, account_id=5, run_id=run_id, constants={})
            return counts


async def test_a_rewritten_page_updates_only_the_rows_that_changed(db, database_url):
    rows = [_payout(n) for n in range(1, 6)]
    assert await _write(database_url, rows, 1) == WriteCounts(inserted=5)
    before = dict(db.execute("SELECT id, xmin::text FROM payout_requests").fetchall())

    rows[2] = _payout(3, state="approved")
    assert await _write(database_url, rows, 2) == WriteCounts(updated=1, unchanged=4)

    after = dict(db.execute("SELECT id, xmin::text FROM payout_requests").fetchall())
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {"INV-0000003"}
    assert db.execute("SELECT state, sync_run_id FROM payout_requests WHERE id = 'INV-0000003'").fetchone() == ("approved", 2)


async def test_concurrent_claims_never_hand_out_the_same_task_and_expired_leases_are_taken_over(db, database_url):
    add_account(db, 77)
    async with await AsyncConnection.connect(database_url, autocommit=True) as setup:
        await leases.enqueue(setup, ["earnings"])

    async def claim(owner: str, seconds: float):
        async with await AsyncConnection.connect(database_url, autocommit=True) as conn:
            return await leases.claim(conn, owner, seconds)

    results = await asyncio.gather(*(claim(f"w{i}", 0.5) for i in range(6)))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1 and winners[0].previous_owner is None

    await asyncio.sleep(0.6)  # the holder never heartbeats: its lease expires
    taken = await claim("late", 30)
    assert taken is not None and taken.previous_owner == winners[0].owner

    # The old holder's page transactions are fenced off.
    async with await AsyncConnection.connect(database_url, autocommit=True) as conn:
        stale = await conn.execute(leases.FENCE_SQL, {"account_id": 77, "resource": "earnings",
                                                       "token": winners[0].token, "lease": 30})
        assert await stale.fetchone() is None
        assert await leases.heartbeat(conn, [winners[0].token, taken.token, uuid.uuid4()], 30) == {taken.token}
