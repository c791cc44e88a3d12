"""The backfill progress bar is measured over the account's real history, not from 1970."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sync.progress import covered_fraction, history_starts

DAY = 86400


def test_the_history_start_is_the_oldest_row_the_upstream_holds_for_each_resource(
    database_url, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=2000, history_days=200)
    now = int(sandbox.clock()["now"])
    targets = [(account_id, r) for r in ("earnings", "posts", "chargebacks", "payout_requests")]
    floors = asyncio.run(history_starts(sync_settings, database_url, targets, now))

    start = datetime.fromtimestamp(int(sandbox.account(account_id)["history_start"]), UTC)
    earnings = floors[f"{account_id}:earnings"]
    assert start <= earnings < start + timedelta(days=1)
    assert start <= floors[f"{account_id}:posts"] < start + timedelta(days=5)
    # Chargebacks and payout requests cannot precede the first earning: the same floor.
    assert floors[f"{account_id}:chargebacks"] == floors[f"{account_id}:payout_requests"] == earnings


def test_a_first_sync_of_22_days_shows_as_a_tenth_of_a_200_day_history_not_as_none_of_it():
    end = datetime(2026, 1, 1, tzinfo=UTC)
    coverage_start = end - timedelta(days=22)
    history_start = end - timedelta(days=200)
    epoch = datetime.fromtimestamp(0, UTC)
    assert 0.10 < covered_fraction(coverage_start, end, history_start) < 0.12
    assert covered_fraction(coverage_start, end, epoch) < 0.002  # what the bar showed before
    # A completed backfill's coverage starts at the backfill's lower bound: 100%.
    assert covered_fraction(epoch, end, history_start) == 1.0


def test_an_account_the_upstream_rejects_has_no_history_start_and_the_bar_keeps_since(
    database_url, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=500, history_days=30)
    sandbox.configure_account(account_id, rejected=True)
    now = int(sandbox.clock()["now"])
    floors = asyncio.run(history_starts(sync_settings.replace(upstream_max_attempts=1), database_url,
                                        [(account_id, "earnings")], now))
    assert floors == {}
