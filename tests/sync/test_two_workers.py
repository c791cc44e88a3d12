"""Two worker processes share the work through leases: never the same task at once, and
each upstream page is fetched once."""

from __future__ import annotations

import signal

import pytest

from sync.resources import REGISTRY
from tests.fixtures.net import wait_for
from tests.sync.helpers import sandbox_truth, store_truth
from tests.sync.processes import relay, worker_env

pytestmark = pytest.mark.slow


def test_two_workers_started_together_never_hold_the_same_lease_and_fetch_each_page_once(
    db, database_url, sandbox, sync_settings, new_account
):
    accounts = [new_account(earnings=6000, history_days=200) for _ in range(3)]
    sandbox._call("POST", "/_sandbox/stats/reset")
    for account_id in accounts:
        for name in REGISTRY:
            db.execute(
                "INSERT INTO sync_tasks (account_id, resource, backfill_since) VALUES (%s, %s, 'epoch')",
                (account_id, name),
            )
    # Short backfill slices: tasks change hands between the workers many times.
    common = dict(RELAY_SYNC_BACKFILL_SLICE_SECONDS="0.3", RELAY_SYNC_WORKER_CONCURRENCY="2",
                  RELAY_SYNC_LEASE_SECONDS="5", RELAY_BACKFILL_REQUESTS_PER_SECOND="0")
    workers = [
        relay("worker", env=worker_env(database_url, sandbox, RELAY_WORKER_ID=name, **common))
        for name in ("worker-a", "worker-b")
    ]
    try:
        def all_done() -> bool:
            (left,) = db.execute(
                """
                SELECT count(*) FROM sync_tasks t LEFT JOIN sync_state s USING (account_id, resource)
                WHERE t.backfill_since IS NOT NULL OR s.last_success_at IS NULL
                   OR t.lease_owner IS NOT NULL
                """
            ).fetchone()
            return left == 0

        wait_for(all_done, 120, "every task synced and backfilled")
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        codes = [w.wait(30) for w in workers]
    assert codes == [0, 0]

    runs = db.execute(
        "SELECT account_id, resource, worker, started_at, finished_at FROM sync_runs ORDER BY started_at"
    ).fetchall()
    assert {r[2] for r in runs} == {"worker-a", "worker-b"}
    last_finish: dict = {}
    for account_id, resource, _, started, finished in runs:
        previous = last_finish.get((account_id, resource))
        assert previous is None or started >= previous, (account_id, resource)
        last_finish[(account_id, resource)] = finished

    now = int(sandbox.clock()["now"])
    served = sandbox.stats()["earnings.rows"]
    assert served == sum(sandbox_truth(sandbox, a, "earnings", 0, now)["count"] for a in accounts)
    for account_id in accounts:
        for name in REGISTRY:
            assert store_truth(db, account_id, name, 0, now) == sandbox_truth(sandbox, account_id, name, 0, now)
