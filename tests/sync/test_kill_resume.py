"""A backfill process killed with SIGKILL mid-way resumes from its committed cursor."""

from __future__ import annotations

import signal

import pytest

from tests.fixtures.net import wait_for
from tests.sync.helpers import sandbox_truth, store_truth
from tests.sync.processes import PAGE, relay, worker_env

pytestmark = pytest.mark.slow


def test_backfill_killed_with_sigkill_then_restarted_converges_without_gap_or_duplicate(
    db, database_url, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=40_000, history_days=365)  # 80 pages: the kill after 15 leaves most to the restart
    sandbox._call("POST", "/_sandbox/stats/reset")
    env = worker_env(database_url, sandbox, RELAY_BACKFILL_REQUESTS_PER_SECOND="20")
    args = ("sync", "backfill", "--account", str(account_id), "--resource", "earnings", "--no-progress")

    def committed_pages() -> int:
        (pages,) = db.execute(
            "SELECT coalesce(sum(pages), 0) FROM sync_runs WHERE account_id = %s AND kind = 'backfill'",
            (account_id,),
        ).fetchone()
        return pages

    first = relay(*args, env=env)
    try:
        wait_for(lambda: committed_pages() >= 15, 60, "15 backfill pages")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    (stored_at_kill,) = db.execute("SELECT count(*) FROM earnings WHERE account_id = %s", (account_id,)).fetchone()
    now = int(sandbox.clock()["now"])
    total = sandbox_truth(sandbox, account_id, "earnings", 0, now)["count"]
    assert 0 < stored_at_kill < total

    second = relay(*args, env=env)
    assert second.wait(180) == 0

    assert store_truth(db, account_id, "earnings", 0, now) == sandbox_truth(sandbox, account_id, "earnings", 0, now)
    # The killed run is marked abandoned by the takeover; the new holder resumed the cursor.
    statuses = [r[0] for r in db.execute(
        "SELECT status FROM sync_runs WHERE account_id = %s ORDER BY id", (account_id,)
    )]
    assert "abandoned" in statuses and statuses[-1] == "succeeded"
    # Rows the upstream served beyond one copy of each: the lookback window, re-read by the
    # incremental pass the killed process never got to reschedule, plus at most the pages
    # fetched but not committed at the kill (one per partition fetcher, the writer's queue
    # and the page being written), plus one page the client asked twice: under load a request can
    # outlast its timeout after the sandbox has counted its rows, and the retry counts them again.
    lookback_rows = sandbox_truth(sandbox, account_id, "earnings", now - 22 * 86400, now)["count"]
    uncommitted_bound = (9 + sync_settings.sync_prefetch_pages + 1 + 1) * PAGE
    served = sandbox.stats()["earnings.rows"]
    assert total <= served <= total + lookback_rows + uncommitted_bound
