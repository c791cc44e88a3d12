"""Cheap freshness: each head interval one request per resource says whether anything new
appeared; the partitioned passes run only then, and the lookback window is re-read on its
own slower cadence (docs/sync.md, "Cadences")."""

from __future__ import annotations

import asyncio

import pytest

from sync.cli import run_until_idle
from sync.resources import REGISTRY
from sync.worker import Worker
from tests.sync.helpers import sandbox_truth, store_truth

pytestmark = pytest.mark.slow

DAY = 86400
HEAD_SECONDS = 2

#: The sandbox's request counter of each resource's upstream path.
UPSTREAM = {
    "earnings": "earnings/transactions",
    "chargebacks": "payouts/chargebacks",
    "payout_requests": "payouts/requests",
    "posts": "posts",
    "tracking_links": "tracking-links",
    "tracking_link_daily_stats": "tracking-links/{id}/stats",
}


def _every(duration: str) -> str:
    return ",".join(f"{name}={duration}" for name in REGISTRY)


@pytest.fixture
def head_settings(sync_settings):
    """Short head intervals; no initial backfill (only the incremental cadences run)."""
    return sync_settings.replace(sync_intervals=_every(f"{HEAD_SECONDS}s"), sync_initial_backfill=False)


def _tasks(account_id: int) -> list[tuple[int, str]]:
    return [(account_id, name) for name in REGISTRY]


def _run_for(settings, only, seconds: float) -> None:
    """A worker (claim loop only) on ``only`` for ``seconds``, then stopped."""

    async def run() -> None:
        worker = Worker(settings, only=only, enqueue=False, schedule=False)
        running = asyncio.create_task(worker.run())
        await asyncio.sleep(seconds)  # what is measured: what a worker does in that time
        worker.stop()
        await running

    asyncio.run(run())


def _make_due(db, account_id: int) -> None:
    db.execute(
        "UPDATE sync_tasks SET due_at = now(), next_incremental_at = now() WHERE account_id = %s",
        (account_id,),
    )


def _reset_counters(sandbox) -> None:
    sandbox._call("POST", "/_sandbox/stats/reset")


def _coverage_end(db, account_id: int, resource: str) -> int:
    (end,) = db.execute(
        "SELECT extract(epoch FROM coverage_end)::bigint FROM sync_state "
        "WHERE account_id = %s AND resource = %s",
        (account_id, resource),
    ).fetchone()
    return end


def test_an_idle_account_costs_at_most_one_request_per_resource_per_head_interval(
    db, sandbox, head_settings, new_account
):
    account_id = new_account()  # a new earning every ~3 hours: none during the test
    sandbox.set_clock(frozen=False)  # the upstream's time runs
    run_until_idle(head_settings, _tasks(account_id))  # the first passes
    # The first head checks (posts: no counters to compare with yet, so it reads the new
    # posts once); afterwards every check of an idle account is one request.
    _make_due(db, account_id)
    run_until_idle(head_settings, _tasks(account_id))
    _reset_counters(sandbox)
    (checked_before,) = db.execute("SELECT clock_timestamp()").fetchone()

    seconds = 5 * HEAD_SECONDS
    _run_for(head_settings, _tasks(account_id), seconds)

    requests = sandbox.requests(account_id)["requests"]
    intervals = seconds / HEAD_SECONDS
    for name, path in UPSTREAM.items():
        assert requests.get(path, 0) <= intervals + 1, (name, requests)
    # The checks did run: one request each (daily stats need none until a day starts).
    for name in ("earnings", "chargebacks", "payout_requests", "posts", "tracking_links"):
        assert requests[UPSTREAM[name]] >= intervals - 2, (name, requests)
    assert UPSTREAM["tracking_link_daily_stats"] not in requests
    (checked_after,) = db.execute(
        "SELECT min(last_success_at) FROM sync_state WHERE account_id = %s", (account_id,)
    ).fetchone()
    assert checked_after > checked_before
    passes = db.execute(
        "SELECT resource, details FROM sync_runs WHERE account_id = %s AND started_at > %s",
        (account_id, checked_before),
    ).fetchall()
    assert passes == []  # nothing new: no partitioned pass


def test_new_activity_runs_the_passes_over_the_new_rows_only(db, sandbox, head_settings, new_account):
    account_id = new_account(earnings=30000, history_days=30)  # 1,000 earnings a day
    run_until_idle(head_settings, _tasks(account_id))
    before = _coverage_end(db, account_id, "earnings")
    _reset_counters(sandbox)

    sandbox.advance(1500)  # ~17 new earnings; the lookback re-read (30 min) is not due
    now = int(sandbox.clock()["now"])
    _make_due(db, account_id)
    run_until_idle(head_settings, [(account_id, "earnings")])

    assert _coverage_end(db, account_id, "earnings") == now
    assert sandbox_truth(sandbox, account_id, "earnings", before + 1, now)["count"] > 0
    assert store_truth(db, account_id, "earnings", before, now) == sandbox_truth(sandbox, account_id, "earnings", before, now)
    # One head request, then one page per type and tips source over [old end, now].
    assert sandbox.requests(account_id)["requests"] == {UPSTREAM["earnings"]: 1 + 9}
    (mode, passes) = db.execute(
        "SELECT details->>'mode', details->'passes' FROM sync_runs "
        "WHERE account_id = %s AND resource = 'earnings' ORDER BY id DESC LIMIT 1",
        (account_id,),
    ).fetchone()
    assert mode == "new rows"
    assert {tuple(window) for window in passes.values()} == {(before, now)}


def test_a_late_status_change_arrives_with_the_lookback_cadence(db, sandbox, sync_settings, new_account):
    settings = sync_settings.replace(sync_initial_backfill=False, sync_lookback_intervals="earnings=2d")
    account_id = new_account(earnings=3000, history_days=120)
    targets = [(account_id, "earnings")]
    run_until_idle(settings, targets)
    (start,) = db.execute(
        "SELECT extract(epoch FROM coverage_start)::bigint FROM sync_state "
        "WHERE account_id = %s AND resource = 'earnings'",
        (account_id,),
    ).fetchone()

    sandbox.advance(DAY)  # payments of 7 and 21 pending days settle; new payments appear
    now = int(sandbox.clock()["now"])
    _make_due(db, account_id)
    run_until_idle(settings, targets)
    # The head check saw the new payments: they are stored; the settled ones are not yet.
    assert _coverage_end(db, account_id, "earnings") == now
    assert store_truth(db, account_id, "earnings", now - DAY, now) == sandbox_truth(sandbox, account_id, "earnings", now - DAY, now)
    assert store_truth(db, account_id, "earnings", start, now) != sandbox_truth(sandbox, account_id, "earnings", start, now)

    sandbox.advance(DAY + 1)  # two days since the last lookback re-read: it is due
    now = int(sandbox.clock()["now"])
    _make_due(db, account_id)
    run_until_idle(settings, targets)
    assert store_truth(db, account_id, "earnings", start, now) == sandbox_truth(sandbox, account_id, "earnings", start, now)
    (mode,) = db.execute(
        "SELECT details->>'mode' FROM sync_runs WHERE account_id = %s ORDER BY id DESC LIMIT 1",
        (account_id,),
    ).fetchone()
    assert mode == "lookback"


def test_new_posts_of_every_archive_bucket_arrive(db, sandbox, head_settings, new_account):
    """The posts head is the feed's newest post plus the account's counters (a post
    published straight into an archive changes only those); the new-rows pass reads all
    three buckets."""
    account_id = new_account(earnings=20000, history_days=30)  # 1,000 posts: ~33 a day
    targets = [(account_id, "posts")]
    run_until_idle(head_settings, targets)
    before = _coverage_end(db, account_id, "posts")

    # 8% of posts land in an archive: ten days (~330 posts) make "none archived" a
    # one-in-10^12 draw, where two days (~66) missed one run in ~250.
    sandbox.advance(10 * DAY)
    now = int(sandbox.clock()["now"])
    _make_due(db, account_id)
    run_until_idle(head_settings, targets)

    assert _coverage_end(db, account_id, "posts") == now
    assert store_truth(db, account_id, "posts", before, now) == sandbox_truth(sandbox, account_id, "posts", before, now)
    (archived,) = db.execute(
        "SELECT count(*) FROM posts WHERE account_id = %s AND posted_at > to_timestamp(%s) "
        "AND (payload->>'isArchived' = 'true' OR payload->>'isPrivateArchived' = 'true')",
        (account_id, before),
    ).fetchone()
    assert archived > 0
