"""Helpers of the event tests: sync passes on demand, the outbox's contents, the webhook
dispatcher one step at a time."""

from __future__ import annotations

import asyncio
import contextlib

import psycopg
from psycopg_pool import AsyncConnectionPool

from app.admin import service as admin
from app.crypto.keyring import Keyring
from app.events.feed import HORIZON_SQL
from app.events.webhooks import endpoints
from app.events.webhooks.dispatcher import Dispatcher
from sync.cli import request_and_run, run_until_idle
from tests.fixtures.api import auth
from tests.fixtures.database import TEST_SECRET_KEYS
from tests.fixtures.net import wait_for

DAY = 86400


def add_endpoint(db, org: str, url: str, types: list[str] | None) -> tuple[int, str]:
    """``relay webhooks add`` with private addresses allowed (the receivers are local): (endpoint
    id, its secret), stored under the test session's key."""
    return endpoints.add_endpoint(db, org, url, types, keyring=Keyring([TEST_SECRET_KEYS]), allow_private=True)


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


def reader_key(db, org_id: int) -> str:
    """A reader key of the organization, with credits to read the feed and exports."""
    db.execute("UPDATE organizations SET credit_balance = 1000 WHERE id = %s", (org_id,))
    return admin.create_key(db, org_id, "reader").secret


def feed_page(client, key: str, after: str | None, limit: int) -> dict:
    """One page of ``GET /v1/events`` (its ``data``)."""
    params = {"limit": limit, **({"after": after} if after else {})}
    answer = client.get("/v1/events", params=params, headers=auth(key))
    assert answer.status_code == 200, answer.text
    if not answer.json()["data"]["hasMore"]:
        assert "_pagination" not in answer.json()
    return answer.json()["data"]


def read_feed(client, key: str, after: str | None = None, limit: int = 37) -> tuple[list[str], str]:
    """Poll the feed from ``after`` until it has no more: (event ids, the cursor to go on from)."""
    ids = []
    while True:
        data = feed_page(client, key, after, limit)
        ids += [e["id"] for e in data["list"]]
        after = data["cursor"]
        if not data["hasMore"]:
            return ids, after


@contextlib.asynccontextmanager
async def dispatcher_on(settings, database_url: str, worker: str = "test-dispatcher"):
    """A webhook dispatcher with a pool and an HTTP client of its own: what ``relay worker``
    runs, to drive one step at a time."""
    async with AsyncConnectionPool(database_url, min_size=1, max_size=settings.webhook_concurrency + 2,
                                   open=False, kwargs={"autocommit": True}) as pool:
        dispatcher = Dispatcher(settings, pool, worker)
        async with dispatcher.http_client() as client:
            dispatcher.client = client
            yield dispatcher


def on_dispatcher(settings, database_url: str, work):
    """``await work(dispatcher)`` on a dispatcher of its own; its result."""

    async def run():
        async with dispatcher_on(settings, database_url) as dispatcher:
            return await work(dispatcher)

    return asyncio.run(run())


async def rounds_until_idle(dispatcher: Dispatcher, rounds: int = 50) -> None:
    """Claim and deliver until the dispatcher finds nothing due (or ``rounds`` rounds)."""
    for _ in range(rounds):
        await dispatcher.round()
        if not dispatcher._busy:
            return
        await asyncio.wait(list(dispatcher._busy.values()))


def wait_for_horizon(database_url: str, timeout: float = 120.0) -> None:
    """Wait until the events written so far are behind the horizon the feed and the
    dispatcher hand events out to (older than every running transaction). The horizon is
    the server's: a long transaction of another test database on it holds it back."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        (newest,) = conn.execute("SELECT coalesce(max(tx), 0) FROM events").fetchone()
        wait_for(lambda: conn.execute(f"SELECT {HORIZON_SQL} > %s", (newest,)).fetchone()[0],
                 timeout, "the running transactions of the server to end")


def deliver_until_idle(settings, database_url: str, rounds: int = 50) -> None:
    """Run the webhook dispatcher until it finds nothing due (or ``rounds`` rounds), once
    every event written so far can be delivered."""
    wait_for_horizon(database_url)
    on_dispatcher(settings, database_url, lambda dispatcher: rounds_until_idle(dispatcher, rounds))


def prune_now(settings, database_url: str) -> dict[str, int | None]:
    """The dispatcher's pruning jobs, run now (each unless it ran in the last hour)."""
    return on_dispatcher(settings, database_url, lambda dispatcher: dispatcher.prune())
