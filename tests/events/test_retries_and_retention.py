"""Time-driven behaviour of webhooks and the outbox, without waiting: the dispatcher reads
time from PostgreSQL (now()), so the tests move the stored timestamps instead.

- a failing endpoint is retried with growing, jittered delays and disabled with its reason
  once it has failed for ``webhook_retry_hours`` (24);
- events older than ``events_retention_days`` (30) and delivery-log entries older than
  ``webhook_log_retention_days`` (7) are pruned, at most hourly, and a consumer polling the
  feed across a pruning neither repeats an event nor stumbles on its cursor.
"""

from __future__ import annotations

import pytest

from app.events.webhooks.dispatcher import MAX_BACKOFF_SECONDS, backoff
from tests.events.helpers import (
    DAY,
    add_endpoint,
    deliver_until_idle,
    events_of,
    feed_page,
    initial_sync,
    next_incremental,
    prune_now,
    read_feed,
    reader_key,
)

pytestmark = pytest.mark.slow


def _org_of(db, account_id: int) -> int:
    return db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()[0]


def _endpoint(db, endpoint_id: int) -> dict:
    row = db.execute(
        """
        SELECT w.status, w.disabled_reason, w.attempts,
               extract(epoch FROM w.next_attempt_at - d.created_at)::float AS delay
        FROM webhook_endpoints w
        LEFT JOIN LATERAL (SELECT created_at FROM webhook_deliveries
                           WHERE endpoint_id = w.id ORDER BY id DESC LIMIT 1) d ON true
        WHERE w.id = %s
        """,
        (endpoint_id,),
    ).fetchone()
    return dict(zip(("status", "reason", "attempts", "delay"), row, strict=True))


def _due_now(db, endpoint_id: int, failing_for: str | None = None) -> None:
    """The retry's delay has passed (and, if given, the endpoint has failed that long)."""
    db.execute(
        "UPDATE webhook_endpoints SET next_attempt_at = now(), "
        "failing_since = coalesce(now() - %s::interval, failing_since) WHERE id = %s",
        (failing_for, endpoint_id),
    )


def test_backoff_doubles_with_jitter_up_to_an_hour():
    for attempt in range(1, 12):
        assert 2**attempt / 2 <= backoff(attempt) <= 2**attempt
    assert MAX_BACKOFF_SECONDS / 2 <= backoff(40) <= MAX_BACKOFF_SECONDS


def test_a_failing_endpoint_is_retried_with_growing_delays_then_disabled_after_24_hours(
    db, database_url, sandbox, sync_settings, new_account, receiver
):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    endpoint_id, _ = add_endpoint(db, str(_org_of(db, account_id)), receiver.url, ["earnings.created"])
    receiver.down = True
    sandbox.advance(DAY)
    next_incremental(db, sync_settings, account_id)
    head = f"evt_{events_of(db, account_id, 'earnings.created')[0][0].hex}"

    delays = []
    for attempt in range(1, 7):
        deliver_until_idle(sync_settings, database_url)
        state = _endpoint(db, endpoint_id)
        # One attempt per due time, then it waits: 2**n seconds times a jitter in [0.5, 1].
        assert len(receiver.requests) == attempt and state["attempts"] == attempt
        assert 2**attempt / 2 - 0.01 <= state["delay"] <= 2**attempt + 0.01
        delays.append(state["delay"])
        _due_now(db, endpoint_id)
    assert delays[-1] > delays[0]
    # Always the head of the endpoint's queue: order is kept while it fails.
    assert {headers["webhook-id"] for headers, _, _ in receiver.requests} == {head}

    _due_now(db, endpoint_id, failing_for="23 hours")
    deliver_until_idle(sync_settings, database_url)
    assert _endpoint(db, endpoint_id)["status"] == "active"  # retried for 24 hours

    _due_now(db, endpoint_id, failing_for="24 hours 1 minute")
    deliver_until_idle(sync_settings, database_url)
    state = _endpoint(db, endpoint_id)
    assert state["status"] == "disabled"
    assert state["reason"].startswith("failing since ") and state["reason"].endswith(": HTTP 503")
    tried = len(receiver.requests)
    assert tried == 8

    _due_now(db, endpoint_id)
    deliver_until_idle(sync_settings, database_url)
    assert len(receiver.requests) == tried  # disabled: no more attempts
    log = db.execute(
        "SELECT attempt, status_code, delivered FROM webhook_deliveries WHERE endpoint_id = %s ORDER BY id",
        (endpoint_id,),
    ).fetchall()
    assert log == [(n, 503, False) for n in range(1, tried + 1)]


def test_old_events_and_delivery_log_entries_are_pruned_hourly_and_a_polling_consumer_never_repeats(
    db, database_url, sandbox, sync_settings, new_account, receiver, api_client
):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    org_id = _org_of(db, account_id)
    endpoint_id, _ = add_endpoint(db, str(org_id), receiver.url, None)
    sandbox.advance(2 * DAY)
    next_incremental(db, sync_settings, account_id)
    deliver_until_idle(sync_settings, database_url)
    ids = [f"evt_{e.hex}" for e, _, _ in events_of(db, account_id)]
    assert len(ids) > 60 and len(receiver.accepted()) == len(ids) - 1  # all but the backfill's own
    key = reader_key(db, org_id)
    ahead = feed_page(api_client, key, None, 40)  # a consumer that has read 40 events
    behind = feed_page(api_client, key, None, 10)  # and one that has read 10
    assert [e["id"] for e in ahead["list"]] == ids[:40]

    # The 25 oldest events pass the 30-day retention; the rest are 29 days old.
    db.execute("UPDATE events SET occurred_at = now() - interval '29 days' WHERE account_id = %s", (account_id,))
    db.execute(
        "UPDATE events SET occurred_at = now() - interval '31 days' "
        "WHERE id IN (SELECT id FROM events WHERE account_id = %s ORDER BY tx, id LIMIT 25)",
        (account_id,),
    )
    # Half the delivery log passes its 7 days; the rest is 6 days old.
    log = [r[0] for r in db.execute("SELECT id FROM webhook_deliveries WHERE endpoint_id = %s ORDER BY id",
                                    (endpoint_id,))]
    old_log = log[: len(log) // 2]
    db.execute("UPDATE webhook_deliveries SET created_at = now() - interval '6 days' WHERE endpoint_id = %s",
               (endpoint_id,))
    db.execute("UPDATE webhook_deliveries SET created_at = now() - interval '8 days' WHERE id = ANY(%s)", (old_log,))

    assert prune_now(sync_settings, database_url) == {"events_prune": 25, "webhook_log_prune": len(old_log)}
    assert [f"evt_{e.hex}" for e, _, _ in events_of(db, account_id)] == ids[25:]
    assert [r[0] for r in db.execute("SELECT id FROM webhook_deliveries ORDER BY id")] == log[len(old_log):]
    runs = db.execute("SELECT job, deleted, details FROM maintenance_runs ORDER BY id").fetchall()
    assert runs == [("events_prune", 25, {"older_than_days": 30}),
                    ("webhook_log_prune", len(old_log), {"older_than_days": 7})]

    # At most hourly, whichever process asks: the next event past retention waits for the hour.
    db.execute("UPDATE events SET occurred_at = now() - interval '31 days' WHERE event_id = %s::uuid",
               (ids[25].removeprefix("evt_"),))
    assert prune_now(sync_settings, database_url) == {"events_prune": None, "webhook_log_prune": None}
    db.execute("UPDATE maintenance_runs SET ran_at = ran_at - interval '61 minutes'")
    assert prune_now(sync_settings, database_url) == {"events_prune": 1, "webhook_log_prune": 0}

    # Cursors stay valid across the pruning: each consumer goes on without a repeat.
    rest, _ = read_feed(api_client, key, ahead["cursor"])
    assert [e["id"] for e in ahead["list"]] + rest == ids
    rest, _ = read_feed(api_client, key, behind["cursor"])
    assert rest == ids[26:]  # its position was pruned: it goes on at the oldest event kept
    assert read_feed(api_client, key)[0] == ids[26:]  # a new consumer starts there too
