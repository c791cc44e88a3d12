"""A worker killed with SIGKILL between pages of an incremental pass loses no event and
duplicates none: each page's events commit with its rows, and the next holder resumes the
pass from the committed cursor (a re-read page finds its rows unchanged: no event)."""

from __future__ import annotations

import signal
from collections import Counter

import pytest

from tests.events.helpers import DAY, events_of, initial_sync, make_due, statuses_of
from tests.fixtures.net import wait_for
from tests.sync.helpers import sandbox_truth, store_truth
from tests.sync.processes import relay, worker_env

pytestmark = pytest.mark.slow

# Small pages, a short lookback and a slow upstream: the pass takes a few seconds over
# dozens of pages, so the kill lands in its middle.
PASS_ENV = {"RELAY_SYNC_PAGE_SIZE": "5", "RELAY_SYNC_LOOKBACKS": "earnings=3d"}
LATENCY_MS = 300


def _count(db, sql: str, *params) -> int:
    (value,) = db.execute(sql, params).fetchone()
    return value


def test_sigkill_between_pages_of_an_incremental_pass_loses_and_duplicates_no_event(
    db, database_url, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=6000, history_days=120)
    initial_sync(sync_settings, account_id)  # history: no earnings event
    before = statuses_of(db, account_id)
    start = int(sandbox.clock()["now"])  # the frozen clock: the initial sync's coverage end
    sandbox.advance(3 * DAY)
    now = int(sandbox.clock()["now"])
    new_upstream = sandbox_truth(sandbox, account_id, "earnings", start + 1, now)["count"]
    assert new_upstream > 50

    sandbox.set_fault_rates(latency_ms=LATENCY_MS)
    make_due(db, account_id)
    env = worker_env(database_url, sandbox, **PASS_ENV)
    args = ("sync", "run-once", "--account", str(account_id), "--resource", "earnings")

    def created() -> int:
        return _count(db, "SELECT count(*) FROM events WHERE account_id = %s AND type = 'earnings.created'",
                      account_id)

    first = relay(*args, env=env)
    try:
        # The first page holding new transactions has committed (with its events).
        wait_for(lambda: created() > 0, 60, "the first committed page of new transactions", every=0.02)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    at_kill = created()
    running = _count(db, "SELECT count(*) FROM sync_runs WHERE account_id = %s AND kind = 'incremental' "
                     "AND status = 'running'", account_id)
    assert running == 1  # killed inside the pass, not after it
    assert 0 < at_kill < new_upstream

    sandbox.set_fault_rates(latency_ms=0)
    second = relay(*args, env=env)  # takes the task once the killed holder's 2 s lease ends
    assert second.wait(120) == 0
    statuses = [r[0] for r in db.execute(
        "SELECT status FROM sync_runs WHERE account_id = %s AND kind = 'incremental' ORDER BY id", (account_id,))]
    assert statuses[-2:] == ["abandoned", "succeeded"]  # the takeover resumed the killed pass
    # The pass's window (the 3-day lookback and the new days) equals the upstream's.
    window = (start - 3 * DAY, now)
    assert store_truth(db, account_id, "earnings", *window) == sandbox_truth(sandbox, account_id, "earnings", *window)

    after = statuses_of(db, account_id)
    new_rows = set(after) - set(before)
    created_ids = Counter(p["id"] for _, _, p in events_of(db, account_id, "earnings.created"))
    assert [i for i, n in created_ids.items() if n > 1] == []  # no duplicate
    assert set(created_ids) == new_rows  # none missing, none without its row
    assert len(new_rows) == new_upstream  # one per new upstream transaction
    updated_ids = Counter(p["id"] for _, _, p in events_of(db, account_id, "earnings.updated"))
    assert [i for i, n in updated_ids.items() if n > 1] == []
    assert set(updated_ids) == {i for i, status in before.items() if after[i] != status}
