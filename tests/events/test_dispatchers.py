"""Dispatchers share the endpoints through PostgreSQL and keep them apart: a slow endpoint
times out on its own attempt without delaying another, and two dispatchers (as two
``relay worker`` processes would) split the endpoints and never send an event twice.
``relay worker`` itself syncs and delivers in one process."""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from datetime import timedelta

import psycopg
import pytest
from standardwebhooks.webhooks import Webhook

from app.events.webhooks.dispatcher import Dispatcher
from app.settings import Settings
from tests.events.helpers import (
    DAY,
    add_endpoint,
    deliver_until_idle,
    dispatcher_on,
    events_of,
    initial_sync,
    make_due,
    next_incremental,
    rounds_until_idle,
    wait_for_horizon,
)
from tests.events.receiver import Receiver
from tests.fixtures.net import wait_for
from tests.sync.processes import relay, worker_env

pytestmark = pytest.mark.slow


@pytest.fixture
def receivers():
    made: list[Receiver] = []

    def make(count: int = 1, delay: float = 0.0) -> list[Receiver]:
        made.extend(Receiver(delay) for _ in range(count))
        return made[-count:]

    yield make
    for receiver in made:
        receiver.close()


def _synced_account(db, sync_settings, new_account) -> tuple[int, int]:
    """An account whose initial sync is done (history, no events yet): (account, organization)."""
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()
    return account_id, org_id


def _new_day(db, sandbox, sync_settings, account_id: int) -> list[str]:
    """A day of upstream activity synced: the ids of the account's events it wrote."""
    before = len(events_of(db, account_id))
    sandbox.advance(DAY)
    next_incremental(db, sync_settings, account_id)
    return [f"evt_{e.hex}" for e, _, _ in events_of(db, account_id)[before:]]


def _ids(receiver: Receiver, secret: str) -> list[str]:
    verifier = Webhook(secret)
    return [verifier.verify(body, headers)["id"] for headers, body in receiver.accepted()]


def test_attempts_have_the_configured_timeouts():
    dispatcher = Dispatcher(Settings(), pool=None, worker="w")
    timeout = dispatcher.http_client().timeout
    assert (timeout.connect, timeout.read) == (5.0, 10.0)


def test_a_slow_endpoint_times_out_on_its_own_without_delaying_another(
    db, database_url, sandbox, sync_settings, new_account, receivers
):
    account_id, org_id = _synced_account(db, sync_settings, new_account)
    settings = sync_settings.replace(webhook_timeout=1.0)
    # The slow answer comes long after the 1 s timeout, so "not waited for" holds with room
    # to spare on a loaded machine.
    (slow,), (fast,) = receivers(delay=12.0), receivers()
    slow_id, _ = add_endpoint(db, str(org_id), slow.url, None)
    fast_id, fast_secret = add_endpoint(db, str(org_id), fast.url, None)
    expected = _new_day(db, sandbox, sync_settings, account_id)

    started = time.monotonic()
    deliver_until_idle(settings, database_url)
    assert time.monotonic() - started < 10.0  # the slow answer was not waited for
    assert _ids(fast, fast_secret) == expected
    attempts = db.execute(
        "SELECT created_at, error, duration_ms, delivered FROM webhook_deliveries WHERE endpoint_id = %s "
        "ORDER BY created_at", (slow_id,),
    ).fetchall()
    assert len(slow.requests) == len(attempts) >= 1
    for _, error, ms, delivered in attempts:
        assert not delivered and "Timeout" in error and 900 <= ms < 3000
    # Then it waits for its retry: the first comes 1-2 s after the failure (backoff(1)), and
    # a slow machine may reach it before the fast endpoint's deliveries are done.
    if len(attempts) > 1:
        (failed, _, _, _), (retried, _, retry_ms, _) = attempts[:2]
        assert (retried - timedelta(milliseconds=retry_ms) - failed).total_seconds() > 0.9
    # The fast endpoint's deliveries began before the slow attempt gave up.
    (first_fast,) = db.execute(
        "SELECT min(created_at) FROM webhook_deliveries WHERE endpoint_id = %s", (fast_id,)
    ).fetchone()
    assert (attempts[0][0] - first_fast).total_seconds() > 0.5


def test_two_dispatchers_split_the_endpoints_and_send_each_event_once_in_order(
    db, database_url, sandbox, sync_settings, new_account, receivers
):
    account_id, org_id = _synced_account(db, sync_settings, new_account)
    # Every answer waits until the two dispatchers hold all six endpoints between them, three
    # each (their concurrency): neither can finish its three and take the others first, and
    # one whose first claim comes late still finds its three (timing alone let one dispatcher
    # take all six on a loaded machine).
    hooks = receivers(6)
    release = threading.Event()
    for hook in hooks:
        hook.hold = release
    secrets = [add_endpoint(db, str(org_id), r.url, None)[1] for r in hooks]
    expected = _new_day(db, sandbox, sync_settings, account_id)
    wait_for_horizon(database_url)
    settings = sync_settings.replace(webhook_concurrency=3)

    def all_delivered() -> bool:
        return all(len(r.accepted()) >= len(expected) for r in hooks)

    async def keep_claiming(dispatcher) -> None:
        while not all_delivered():
            await dispatcher.round()
            await asyncio.sleep(0.05)
        await rounds_until_idle(dispatcher)

    def all_held() -> bool:
        with psycopg.connect(database_url, autocommit=True) as conn:
            (held,) = conn.execute("SELECT count(*) FROM webhook_endpoints WHERE locked_until > now()").fetchone()
        return held == len(hooks)

    async def both() -> None:
        async with dispatcher_on(settings, database_url, "dispatcher-a") as a, \
                dispatcher_on(settings, database_url, "dispatcher-b") as b:
            runs = asyncio.gather(keep_claiming(a), keep_claiming(b))
            try:
                await asyncio.to_thread(wait_for, all_held, 60, "the two dispatchers to hold all six endpoints")
            finally:
                release.set()
            await runs

    asyncio.run(both())
    for receiver, secret in zip(hooks, secrets, strict=True):
        assert _ids(receiver, secret) == expected  # each event once, in order
        assert len(receiver.requests) == len(expected)
    holders = {r[0] for r in db.execute("SELECT locked_by FROM webhook_endpoints")}
    assert holders == {"dispatcher-a", "dispatcher-b"}


def test_relay_worker_delivers_the_events_of_what_it_syncs(
    db, database_url, sandbox, sync_settings, new_account, receivers
):
    account_id, org_id = _synced_account(db, sync_settings, new_account)
    (hook,) = receivers()
    _, secret = add_endpoint(db, str(org_id), hook.url, ["earnings.created", "earnings.updated"])
    sandbox.advance(DAY)
    make_due(db, account_id)

    def synced() -> bool:
        (passes,) = db.execute(
            "SELECT count(*) FROM sync_runs WHERE account_id = %s AND resource = 'earnings' "
            "AND kind = 'incremental' AND status = 'succeeded'", (account_id,),
        ).fetchone()
        return passes == 2  # the initial sync's and the one made due above

    worker = relay("worker", env=worker_env(database_url, sandbox, RELAY_WEBHOOK_POLL_SECONDS="0.2",
                                        RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES="true"))
    try:
        wait_for(synced, 60, "the worker's incremental pass")
        expected = [f"evt_{e.hex}" for e, t, _ in events_of(db, account_id) if t.startswith("earnings.")]
        assert expected
        wait_for(lambda: len(hook.accepted()) >= len(expected), 60, "the worker's deliveries")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    assert _ids(hook, secret) == expected
