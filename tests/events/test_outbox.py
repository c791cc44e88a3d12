"""Events are written with the rows: history is not an event, each change is one event, for
earnings, chargebacks, payout requests and posts alike."""

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


# resource -> the upstream key of its rows (the stored id), as the event payload carries it
_KEYS = {"chargebacks": "id", "payout_requests": "invoiceId", "posts": "id"}


def _ids(db, table: str, account_id: int) -> set[str]:
    return {str(r[0]) for r in db.execute(f"SELECT id FROM {table} WHERE account_id = %s", (account_id,))}


def test_chargebacks_payout_requests_and_posts_write_their_events_too(db, sandbox, sync_settings, new_account):
    account_id = new_account(earnings=3000, history_days=120, chargebacks=200, posts=300)
    resources = ("earnings", *_KEYS)
    initial_sync(sync_settings, account_id, resources)
    assert [t for _, t, _ in events_of(db, account_id)] == ["sync.backfill_completed"]
    before = {table: _ids(db, table, account_id) for table in _KEYS}
    states = dict(db.execute("SELECT id, state FROM payout_requests WHERE account_id = %s", (account_id,)).fetchall())
    start = int(sandbox.clock()["now"])
    sandbox.advance(14 * DAY)  # about two payout requests, a few chargebacks and posts; pending payouts settle
    now = int(sandbox.clock()["now"])
    next_incremental(db, sync_settings, account_id, resources)

    for table, key in _KEYS.items():
        created = [str(p[key]) for _, _, p in events_of(db, account_id, f"{table}.created")]
        new = _ids(db, table, account_id) - before[table]
        assert len(created) == len(set(created)) == len(new) == sandbox_truth(sandbox, account_id, table, start + 1, now)["count"]
        assert set(created) == new and new, table
    after = dict(db.execute("SELECT id, state FROM payout_requests WHERE account_id = %s", (account_id,)).fetchall())
    settled = {i for i, state in states.items() if after[i] != state}
    updated = [p["invoiceId"] for _, _, p in events_of(db, account_id, "payout_requests.updated")]
    assert settled and sorted(updated) == sorted(settled)
    assert all(p["state"] == after[p["invoiceId"]] for _, _, p in events_of(db, account_id, "payout_requests.updated"))
