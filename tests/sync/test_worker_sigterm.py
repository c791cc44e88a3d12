"""SIGTERM to relay worker mid-backfill: it ends its page, releases its leases, and another
worker takes the task at once (not after the lease expires); the store ends complete."""

from __future__ import annotations

import signal
import time

import pytest

from tests.fixtures.net import wait_for
from tests.sync.helpers import sandbox_truth, store_truth
from tests.sync.processes import relay, worker_env

pytestmark = pytest.mark.slow

LEASE_SECONDS = 120  # far longer than the test waits for the takeover


def test_sigterm_releases_the_leases_and_another_worker_takes_over_at_once(
    db, database_url, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=30_000, history_days=200)
    db.execute(
        "INSERT INTO sync_tasks (account_id, resource, backfill_since) VALUES (%s, 'earnings', 'epoch')",
        (account_id,),
    )
    env = dict(RELAY_SYNC_LEASE_SECONDS=str(LEASE_SECONDS), RELAY_BACKFILL_REQUESTS_PER_SECOND="10",
               RELAY_SYNC_WORKER_CONCURRENCY="1")

    def runs_by(worker: str) -> int:
        (count,) = db.execute(
            "SELECT count(*) FROM sync_runs WHERE account_id = %s AND worker = %s", (account_id, worker)
        ).fetchone()
        return count

    def pages_by(worker: str) -> int:
        (pages,) = db.execute(
            "SELECT coalesce(sum(pages), 0) FROM sync_runs WHERE account_id = %s AND worker = %s", (account_id, worker)
        ).fetchone()
        return pages

    first = relay("worker", env=worker_env(database_url, sandbox, RELAY_WORKER_ID="worker-a", **env))
    second = None
    try:
        wait_for(lambda: pages_by("worker-a") > 0, 60, "worker-a in the middle of the backfill", every=0.05)
        first.send_signal(signal.SIGTERM)
        assert first.wait(30) == 0
        held = db.execute(
            "SELECT count(*) FROM sync_tasks WHERE account_id = %s AND lease_owner IS NOT NULL",
            (account_id,),
        ).fetchone()[0]
        assert held == 0  # released on the way out, not left to expire
        statuses = {row[0] for row in db.execute(
            "SELECT status FROM sync_runs WHERE account_id = %s AND worker = 'worker-a'", (account_id,)
        )}
        assert "running" not in statuses  # its run was closed, not abandoned mid-write

        second = relay("worker", env=worker_env(database_url, sandbox, RELAY_WORKER_ID="worker-b", **env))
        started = time.monotonic()
        wait_for(lambda: runs_by("worker-b") > 0, 30, "worker-b taking the task")
        assert time.monotonic() - started < LEASE_SECONDS / 2

        def backfilled() -> bool:
            (left,) = db.execute(
                "SELECT count(*) FROM sync_tasks WHERE account_id = %s AND backfill_since IS NOT NULL",
                (account_id,),
            ).fetchone()
            return left == 0

        wait_for(backfilled, 240, "the backfill finished by worker-b")
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(30)
    now = int(sandbox.clock()["now"])
    assert store_truth(db, account_id, "earnings", 0, now) == sandbox_truth(sandbox, account_id, "earnings", 0, now)
