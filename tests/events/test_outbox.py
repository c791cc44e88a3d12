"""Events are written with the rows: history is not an event, each change is one event."""

from __future__ import annotations

import pytest

from tests.events.helpers import DAY, events_of, initial_sync, next_incremental, statuses_of
from tests.sync.helpers import sandbox_truth

pytestmark = pytest.mark.slow


def test_initial_backfill_is_history_then_each_new_transaction_is_one_created_event(db, sandbox, sync_settings, new_account):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    assert events_of(db, account_id, "earnings.created") == []
    assert events_of(db, account_id, "earnings.updated") == []
    completed = events_of(db, account_id, "sync.backfill_completed")
    assert len(completed) == 1 and completed[0][2]["resources"] == ["earnings"]

    before = statuses_of(db, account_id)
    start = int(sandbox.clock()["now"])
    sandbox.advance(2 * DAY)
    now = int(sandbox.clock()["now"])
    next_incremental(db, sync_settings, account_id)

    created = events_of(db, account_id, "earnings.created")
    new_ids = [p["id"] for _, _, p in created]
    assert len(new_ids) == len(set(new_ids)) == sandbox_truth(sandbox, account_id, "earnings", start + 1, now)["count"]
    after = statuses_of(db, account_id)
    assert set(new_ids) == set(after) - set(before)
    changed = {i for i, status in before.items() if after[i] != status}
    assert changed  # payments settled (loading -> done) within the two days
    updated = events_of(db, account_id, "earnings.updated")
    assert sorted(p["id"] for _, _, p in updated) == sorted(changed)
    assert all(p["status"] == after[p["id"]] for _, _, p in updated)

    # A re-read that changes nothing writes no event.
    next_incremental(db, sync_settings, account_id)
    assert len(events_of(db, account_id)) == len(created) + len(updated) + 1


def test_rejected_credentials_yield_one_account_event(db, sandbox, sync_settings, new_account):
    account_id = new_account(earnings=200, history_days=30)
    initial_sync(sync_settings, account_id, ("earnings", "payout_requests"))
    sandbox.reject_credentials(account_id)
    next_incremental(db, sync_settings, account_id, ("earnings", "payout_requests"))
    next_incremental(db, sync_settings, account_id, ("earnings", "payout_requests"))
    rejected = events_of(db, account_id, "account.credentials_rejected")
    assert len(rejected) == 1
    assert rejected[0][2]["account_id"] == account_id
    assert "upstream_credentials_rejected" in rejected[0][2]["error"]
