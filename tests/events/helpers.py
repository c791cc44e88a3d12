"""Helpers of the event tests: sync passes on demand and the outbox's contents."""

from __future__ import annotations

from sync.cli import request_and_run, run_until_idle

DAY = 86400


def initial_sync(settings, account_id: int, resources=("earnings",)) -> None:
    """The account's first sync: its whole-history backfill (and first incremental pass)."""
    request_and_run(settings, "backfill", [(account_id, r) for r in resources], None)


def next_incremental(db, settings, account_id: int, resources=("earnings",)) -> None:
    """The scheduler's interval has passed: run the due incremental passes now."""
    db.execute("UPDATE sync_tasks SET due_at = now(), next_incremental_at = now() WHERE account_id = %s", (account_id,))
    run_until_idle(settings, [(account_id, r) for r in resources])


def events_of(db, account_id: int, type_: str | None = None) -> list[tuple]:
    """(event_id, type, payload) of the account's events, in feed order."""
    return db.execute(
        "SELECT event_id, type, payload FROM events WHERE account_id = %s AND (%s::text IS NULL OR type = %s) "
        "ORDER BY tx, id",
        (account_id, type_, type_),
    ).fetchall()
