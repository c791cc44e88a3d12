"""The per-account upstream budget in PostgreSQL: two engines (separate event loops, pools
and connections) share one account's rate; the sandbox's own limit at that rate refuses
(almost) nothing; backfill requests wait while incremental ones are queued."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
from psycopg_pool import AsyncConnectionPool

from sync.budget import UpstreamBudget
from tests.sync.helpers import add_account

RATE = 4.0
ACCOUNT = 730_001


def _engine(database_url: str, sandbox_url: str, requests: int, rate: float, statuses: list) -> None:
    """One engine: its own loop, pool and budget; takes a slot before every upstream call."""

    async def run() -> None:
        async with AsyncConnectionPool(database_url, min_size=1, max_size=2,
                                       kwargs={"autocommit": True}) as pool:
            budget = UpstreamBudget(pool, rate)
            headers = {"Authorization": f"Bearer sandbox-{ACCOUNT}"}
            async with httpx.AsyncClient(base_url=sandbox_url, headers=headers) as client:
                for _ in range(requests):
                    await budget.acquire(ACCOUNT)
                    answer = await client.get(f"/api/accounts/{ACCOUNT}/payouts/requests")
                    statuses.append(answer.status_code)

    asyncio.run(run())


def _two_engines(database_url: str, sandbox_url: str, requests: int, rate: float) -> list[int]:
    statuses: list[int] = []
    threads = [threading.Thread(target=_engine, args=(database_url, sandbox_url, requests, rate, statuses))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return statuses


def test_two_engines_on_one_budget_stay_under_the_upstream_limit(db, database_url, sandbox_reset):
    sandbox = sandbox_reset
    add_account(db, ACCOUNT)
    sandbox.set_rate_limit(rps=RATE)

    statuses = _two_engines(database_url, sandbox.url, 20, RATE)

    assert len(statuses) == 40
    assert statuses.count(429) / len(statuses) < 0.01
    assert sandbox.requests(ACCOUNT)["rate_limited"] == {}


def test_without_the_budget_the_same_engines_get_429(db, database_url, sandbox_reset):
    sandbox = sandbox_reset
    add_account(db, ACCOUNT)
    sandbox.set_rate_limit(rps=RATE)

    statuses = _two_engines(database_url, sandbox.url, 20, 0.0)  # rate 0: no budget

    assert statuses.count(429) > 0.01 * len(statuses)


async def test_backfill_waits_while_incremental_slots_are_promised(db, database_url):
    add_account(db, ACCOUNT)
    async with AsyncConnectionPool(database_url, min_size=1, max_size=6,
                                   kwargs={"autocommit": True}) as pool:
        budget = UpstreamBudget(pool, RATE)
        finished: list[tuple[str, float]] = []

        async def take(kind: str) -> None:
            await budget.acquire(ACCOUNT, backfill=kind == "backfill")
            finished.append((kind, time.monotonic()))

        incremental = [asyncio.create_task(take("incremental")) for _ in range(4)]
        await asyncio.sleep(0.05)  # the four slots are promised (the bucket is below zero)
        await asyncio.gather(take("backfill"), *incremental)

    assert [kind for kind, _ in finished] == ["incremental"] * 4 + ["backfill"]
    (rows,) = db.execute("SELECT count(*) FROM upstream_budget WHERE account_id = %s", (ACCOUNT,)).fetchone()
    assert rows == 1
