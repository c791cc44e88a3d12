"""The scheduler's clock really ticks: an account connected while a worker runs gets its
tasks without a restart."""

from __future__ import annotations

import signal

import pytest

from sync.resources import REGISTRY
from tests.fixtures.net import wait_for
from tests.sync.processes import relay, worker_env

pytestmark = pytest.mark.slow


def test_running_worker_enqueues_tasks_for_an_account_connected_after_it_started(
    db, database_url, sandbox, new_account
):
    def enqueued(account_id: int):
        def check() -> bool:
            rows = db.execute(
                "SELECT resource FROM sync_tasks WHERE account_id = %s", (account_id,)
            ).fetchall()
            return {r[0] for r in rows} == set(REGISTRY)

        return check

    first = new_account()
    worker = relay(
        "worker", env=worker_env(database_url, sandbox, RELAY_SYNC_TICK_SECONDS="0.5")
    )
    try:
        # The start-up enqueue has happened once the first account's tasks exist.
        wait_for(enqueued(first), 30, "start-up enqueue")
        later = new_account()
        wait_for(enqueued(later), 30, "tasks enqueued by a scheduler tick")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0


@pytest.mark.parametrize("initial_backfill", [True, False])
async def test_new_tasks_start_with_a_whole_history_backfill_unless_disabled(
    db, database_url, new_account, initial_backfill
):
    import psycopg

    from sync import leases

    account_id = new_account()
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        added = await leases.enqueue(conn, list(REGISTRY), initial_backfill=initial_backfill)
        # A second enqueue adds nothing and leaves the first request alone.
        assert await leases.enqueue(conn, list(REGISTRY), initial_backfill=not initial_backfill) == 0
    assert added == len(REGISTRY)
    since = {
        row[0]
        for row in db.execute(
            "SELECT backfill_since FROM sync_tasks WHERE account_id = %s", (account_id,)
        )
    }
    if initial_backfill:
        assert {s.timestamp() for s in since} == {0.0}  # from the beginning of the history
    else:
        assert since == {None}
