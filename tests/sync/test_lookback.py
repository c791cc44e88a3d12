"""Upstream changes to recent rows reach the store at the next incremental run; older
changes wait for a reconciliation pass."""

from __future__ import annotations

import pytest

from sync.cli import request_and_run, run_until_idle
from tests.sync.helpers import sandbox_truth, store_truth

pytestmark = pytest.mark.slow

DAY = 86400


def _make_due(db, account_id: int) -> None:
    """The scheduler's interval has passed (without waiting for it)."""
    db.execute(
        "UPDATE sync_tasks SET due_at = now(), next_incremental_at = now() WHERE account_id = %s",
        (account_id,),
    )


def _loading(db, account_id: int) -> int:
    (n,) = db.execute(
        "SELECT count(*) FROM earnings WHERE account_id = %s AND status = 'loading'", (account_id,)
    ).fetchone()
    return n


def test_a_status_change_inside_the_lookback_reaches_the_store_at_the_next_run(
    db, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=3000, history_days=120)
    request_and_run(sync_settings, "backfill", [(account_id, "earnings")], None)
    loading_before = _loading(db, account_id)
    assert loading_before > 0

    sandbox.advance(10 * DAY)  # payments of 7 pending days settle; new payments appear
    now = int(sandbox.clock()["now"])
    assert store_truth(db, account_id, "earnings", 0, now) != sandbox_truth(sandbox, account_id, "earnings", 0, now)

    _make_due(db, account_id)
    run_until_idle(sync_settings, [(account_id, "earnings")])

    assert store_truth(db, account_id, "earnings", 0, now) == sandbox_truth(sandbox, account_id, "earnings", 0, now)
    (updated,) = db.execute(
        "SELECT sum(rows_updated) FROM sync_runs WHERE account_id = %s AND kind = 'incremental'",
        (account_id,),
    ).fetchone()
    assert updated > 0  # the settled payments were rewritten; unchanged ones were not
    (coverage_end,) = db.execute(
        "SELECT extract(epoch FROM coverage_end)::bigint FROM sync_state WHERE account_id = %s",
        (account_id,),
    ).fetchone()
    assert coverage_end == now


def test_a_change_outside_the_lookback_is_left_to_a_reconciliation_pass(
    db, sandbox, sync_settings, new_account
):
    settings = sync_settings.replace(sync_lookbacks="earnings=2d")
    account_id = new_account(earnings=3000, history_days=120)
    request_and_run(settings, "backfill", [(account_id, "earnings")], None)
    start = int(sandbox.clock()["now"])

    sandbox.advance(10 * DAY)
    now = int(sandbox.clock()["now"])
    _make_due(db, account_id)
    run_until_idle(settings, [(account_id, "earnings")])

    # Re-read: the last 2 days before the old coverage end, and everything after it.
    recent = start - 2 * DAY
    assert store_truth(db, account_id, "earnings", recent, now) == sandbox_truth(sandbox, account_id, "earnings", recent, now)
    # Payments that settled between 7 and 2 days before: outside the lookback, still stale.
    assert store_truth(db, account_id, "earnings", 0, recent - 1) != sandbox_truth(sandbox, account_id, "earnings", 0, recent - 1)

    request_and_run(settings, "reconcile", [(account_id, "earnings")], None)
    assert store_truth(db, account_id, "earnings", 0, now) == sandbox_truth(sandbox, account_id, "earnings", 0, now)
