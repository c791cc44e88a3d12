"""The scale benchmark's freshness reading (bench/scale_probe.py) against the real API and
sandbox: what it calls missing, the lag it reports, and the delays of transactions that turn
visible. The store is filled by hand (as the sync would), the sandbox clock moved by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import app.params
from bench.scale_probe import Freshness

# A transaction every 4 s: 900 over the hour before the epoch, and on at that rate.
HOT = {"earnings": 900, "history_days": 1 / 24}


@pytest.fixture
def freshness(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, **HOT)
    with sandbox.client() as upstream:
        yield Freshness(api_caller.client, upstream, api_caller.key)


def test_the_lag_is_the_age_of_the_oldest_upstream_transaction_the_default_answer_lacks(
        api_caller, sandbox, freshness, monkeypatch):
    api_caller.store.fill_earnings()  # the store holds every row up to the epoch
    first = freshness.read(api_caller.account_id, follow=True)
    assert (first.lag, first.source, first.delays) == (0.0, "store", [])

    sandbox.advance(100)  # new transactions upstream, none in the store
    monkeypatch.setattr(app.params, "utc_now", lambda: datetime.fromtimestamp(sandbox.epoch + 100, UTC))
    new = [datetime.fromisoformat(row["createdAt"]).timestamp() for row in api_caller.upstream(
        "/earnings/transactions", order="asc", start_date=datetime.fromtimestamp(sandbox.epoch + 1, UTC).isoformat(), limit=1000)["list"]]
    assert len(new) >= 10
    behind = freshness.read(api_caller.account_id, follow=True)
    assert behind.source == "store"
    assert behind.lag == pytest.approx(sandbox.epoch + 100 - min(new), abs=1)
    assert behind.delays == []  # still missing: nothing turned visible yet

    api_caller.store.fill_earnings()  # the sync catches up
    api_caller.store.cover("earnings", end=sandbox.epoch + 100)
    caught_up = freshness.read(api_caller.account_id, follow=True)
    assert caught_up.lag == 0.0
    # Each new one got a delay: reading time minus its createdAt.
    assert sorted(caught_up.delays) == pytest.approx(sorted(sandbox.epoch + 100 - t for t in new), abs=1)


def test_the_bench_counts_its_own_upstream_reads_per_account(api_caller, sandbox, freshness):
    api_caller.store.fill_earnings()
    for _ in range(3):
        freshness.read(api_caller.account_id, follow=False)
    assert freshness.upstream_reads == {api_caller.account_id: 3}


def test_transactions_already_missing_at_the_first_reading_get_no_delay(api_caller, sandbox, freshness, monkeypatch):
    api_caller.store.fill_earnings()
    sandbox.advance(60)  # a backlog from before the window: missing, but created before it
    monkeypatch.setattr(app.params, "utc_now", lambda: datetime.fromtimestamp(sandbox.epoch + 60, UTC))
    first = freshness.read(api_caller.account_id, follow=True)
    assert first.lag > 0 and first.delays == []

    api_caller.store.fill_earnings()
    api_caller.store.cover("earnings", end=sandbox.epoch + 60)
    assert freshness.read(api_caller.account_id, follow=True).delays == []
