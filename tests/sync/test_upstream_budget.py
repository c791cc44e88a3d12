"""The per-account upstream budget in PostgreSQL: two engines (separate event loops, pools
and connections) share one account's rate; the sandbox's own limit at that rate refuses
(almost) nothing; backfill requests wait while incremental ones are queued."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool

from sync.upstream_budget import UpstreamBudget
from tests.sync.helpers import add_account, sandbox_truth, store_truth

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


async def test_a_caller_woken_over_a_slot_late_reserves_a_fresh_slot(db, database_url):
    add_account(db, ACCOUNT)
    async with AsyncConnectionPool(database_url, min_size=1, max_size=2, kwargs={"autocommit": True}) as pool:
        budget = UpstreamBudget(pool, RATE)
        await budget.acquire(ACCOUNT)
        await budget.acquire(ACCOUNT)  # the bucket is empty: the next slot is a quarter second ahead
        late = asyncio.create_task(budget.acquire(ACCOUNT))
        await asyncio.sleep(0.05)  # it has reserved its slot and sleeps until it
        time.sleep(1.0)  # the process stalls past that slot (the event loop is blocked)
        (stall_ended,) = db.execute("SELECT clock_timestamp()").fetchone()
        await late

    # It took the budget again after the stall, not its passed slot.
    (taken_at,) = db.execute("SELECT updated_at FROM upstream_budget WHERE account_id = %s", (ACCOUNT,)).fetchone()
    assert taken_at >= stall_ended


# --- the engine on the budget: worker processes against the sandbox's per-account limit ---

def _worker_processes(database_url, sandbox, names, **env):
    from tests.sync.processes import relay, worker_env

    return [relay("worker", env=worker_env(database_url, sandbox, RELAY_WORKER_ID=name, **env))
            for name in names]


def _stop(workers) -> list[int]:
    import signal

    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    return [worker.wait(30) for worker in workers]


@pytest.mark.slow
def test_two_worker_processes_on_the_budget_get_almost_no_429(db, database_url, sandbox, sync_settings, new_account):
    from sync.resources import REGISTRY
    from tests.fixtures.net import wait_for

    accounts = [new_account(earnings=6000, history_days=200) for _ in range(3)]
    sandbox.set_rate_limit(rps=RATE)
    sandbox._call("POST", "/_sandbox/stats/reset")
    for account_id in accounts:
        for name in REGISTRY:
            db.execute("INSERT INTO sync_tasks (account_id, resource, backfill_since) VALUES (%s, %s, 'epoch')",
                       (account_id, name))
    workers = _worker_processes(
        database_url, sandbox, ("worker-a", "worker-b"), RELAY_SYNC_UPSTREAM_RPS=str(RATE),
        RELAY_SYNC_WORKER_CONCURRENCY="4", RELAY_SYNC_PAGE_SIZE="200",
        RELAY_BACKFILL_REQUESTS_PER_SECOND="0", RELAY_SYNC_BACKFILL_SLICE_SECONDS="2",
    )
    try:
        def all_done() -> bool:
            (left,) = db.execute(
                "SELECT count(*) FROM sync_tasks t LEFT JOIN sync_state s USING (account_id, resource) "
                "WHERE t.backfill_since IS NOT NULL OR s.last_success_at IS NULL OR t.lease_owner IS NOT NULL"
            ).fetchone()
            return left == 0

        wait_for(all_done, 150, "every task synced and backfilled")
    finally:
        codes = _stop(workers)
    assert codes == [0, 0]

    counters = sandbox.requests()
    made = sum(counters["requests"].values())
    refused = sum(counters["rate_limited"].values())
    assert made > 3 * 40  # the backfills took many requests per account
    assert refused / made < 0.01, counters
    workers_seen = {w for (w,) in db.execute("SELECT DISTINCT worker FROM sync_runs")}
    assert workers_seen == {"worker-a", "worker-b"}


@pytest.mark.slow
def test_a_running_backfill_does_not_starve_the_incremental_sync_of_the_account(
    db, database_url, sandbox, sync_settings, new_account
):
    """The earnings backfill of an account takes only spare slots of its budget: the head
    checks of its other resources keep their one-second interval meanwhile."""
    from tests.fixtures.net import wait_for

    account_id = new_account(earnings=20000, history_days=365)
    sandbox.set_rate_limit(rps=RATE)
    sandbox.set_clock(frozen=False)
    workers = _worker_processes(
        database_url, sandbox, ("worker-a",), RELAY_SYNC_UPSTREAM_RPS=str(RATE),
        RELAY_SYNC_INITIAL_BACKFILL="false", RELAY_SYNC_PAGE_SIZE="100",
        RELAY_SYNC_INTERVALS="posts=1s,chargebacks=1s,earnings=1s",
        RELAY_BACKFILL_REQUESTS_PER_SECOND="0", RELAY_SYNC_WORKER_CONCURRENCY="6",
    )
    try:
        def synced(resource: str) -> bool:
            row = db.execute("SELECT last_success_at FROM sync_state WHERE account_id = %s AND resource = %s",
                             (account_id, resource)).fetchone()
            return row is not None and row[0] is not None

        wait_for(lambda: synced("posts") and synced("earnings"), 60, "the first passes")
        db.execute("UPDATE sync_tasks SET backfill_since = 'epoch' WHERE account_id = %s AND resource = 'earnings'",
                   (account_id,))

        def backfill_pages() -> int:
            (pages,) = db.execute("SELECT coalesce(sum(pages), 0) FROM sync_runs WHERE account_id = %s "
                                  "AND kind = 'backfill'", (account_id,)).fetchone()
            return pages

        wait_for(lambda: backfill_pages() >= 5, 60, "the backfill under way")
        lags = []
        for _ in range(6):
            time.sleep(1)  # what is measured: the lag sampled each second
            (lag,) = db.execute(
                "SELECT extract(epoch FROM clock_timestamp() - last_success_at) FROM sync_state "
                "WHERE account_id = %s AND resource = 'posts'", (account_id,)).fetchone()
            lags.append(float(lag))
        (backfilling,) = db.execute("SELECT backfill_since IS NOT NULL FROM sync_tasks "
                                    "WHERE account_id = %s AND resource = 'earnings'", (account_id,)).fetchone()
    finally:
        codes = _stop(workers)
    assert codes == [0]
    assert backfilling  # the backfill was still running all along
    # Posts checked every ~1 s (plus a slot of the budget) throughout.
    assert max(lags) < 3.0, lags
    # The budget keeps the sync under the upstream's limit while both processes keep time; a
    # stall of the machine can still bunch a few sends up (one in fifty at most here), and
    # each such refusal is retried on a fresh slot of the budget: no run fails of it.
    counters = sandbox.requests(account_id)
    assert sum(counters["rate_limited"].values()) * 50 <= sum(counters["requests"].values()), counters
    (failed,) = db.execute("SELECT count(*) FROM sync_runs WHERE account_id = %s AND status = 'failed'",
                           (account_id,)).fetchone()
    assert failed == 0


def test_each_retry_of_a_sync_request_takes_a_slot_of_the_budget(db, sandbox_reset, sync_settings, new_account):
    """Two truncated bodies in a row: the page is asked for three times. Each retry waits
    for a slot of the account's budget like any request, so the upstream's limit (its
    bucket holds 2) refuses none; retried at once after the backoff, the third attempt
    would find the bucket empty and be refused with 429."""
    from sync.cli import request_and_run

    sandbox = sandbox_reset
    account_id = new_account(payout_requests=20, history_days=30)
    sandbox.set_rate_limit(rps=1.0, burst=2)
    sandbox.add_fault("truncate", count=2, account_id=account_id)
    settings = sync_settings.replace(sync_upstream_rps=1.0, sync_page_size=500)

    request_and_run(settings, "backfill", [(account_id, "payout_requests")], None)

    assert sandbox.stats()["faults.truncate"] == 2
    assert sandbox.requests(account_id)["rate_limited"] == {}
    now = int(sandbox.clock()["now"])
    assert store_truth(db, account_id, "payout_requests", 0, now) == sandbox_truth(
        sandbox, account_id, "payout_requests", 0, now
    )
