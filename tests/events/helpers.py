"""Helpers of the event tests: sync passes on demand and the outbox's contents."""

from __future__ import annotations

from sync.cli import request_and_run, run_until_idle

DAY = 86400


def initial_sync(settings, account_id: int, resources=("earnings",)) -> None:
    """The account's first sync: its whole-history backfill (and first incremental pass)."""
    request_and_run(settings, "backfill", [(account_id, r) for r in resources], None)


def make_due(db, account_id: int) -> None:
    """The scheduler's interval has passed: the account's incremental passes are due now."""
    db.execute("UPDATE sync_tasks SET due_at = now(), next_incremental_at = now() WHERE account_id = %s", (account_id,))


def next_incremental(db, settings, account_id: int, resources=("earnings",)) -> None:
    """Run the account's incremental passes now."""
    make_due(db, account_id)
    run_until_idle(settings, [(account_id, r) for r in resources])


def events_of(db, account_id: int, type_: str | None = None) -> list[tuple]:
    """(event_id, type, payload) of the account's events, in feed order."""
    return db.execute(
        "SELECT event_id, type, payload FROM events WHERE account_id = %s AND (%s::text IS NULL OR type = %s) "
        "ORDER BY tx, id",
        (account_id, type_, type_),
    ).fetchall()


def statuses_of(db, account_id: int) -> dict[str, str]:
    """Stored earnings of the account: id -> status."""
    return dict(db.execute("SELECT id, status FROM earnings WHERE account_id = %s", (account_id,)).fetchall())


def deliver_until_idle(settings, database_url: str, rounds: int = 50) -> None:
    """Run the webhook dispatcher until it finds nothing due (or ``rounds`` rounds)."""
    import asyncio

    from psycopg_pool import AsyncConnectionPool

    from app.webhooks.dispatcher import Dispatcher

    async def run() -> None:
        async with AsyncConnectionPool(database_url, min_size=1, max_size=4, open=False,
                                       kwargs={"autocommit": True}) as pool:
            import httpx

            dispatcher = Dispatcher(settings, pool, "test-dispatcher")
            async with httpx.AsyncClient(timeout=httpx.Timeout(10, connect=5)) as client:
                dispatcher.client = client
                for _ in range(rounds):
                    await dispatcher.round()
                    if not dispatcher._busy:
                        return
                    await asyncio.wait(list(dispatcher._busy.values()))

    asyncio.run(run())
