"""The webhook dispatcher: runs inside ``relay worker`` (any number of processes).

Each round it claims due endpoints that have pending events (``queue.claim``: FOR UPDATE
SKIP LOCKED and a lock lease, so two processes never deliver to the same endpoint) and
delivers to each in a task of its own, so a slow endpoint never delays another. An
endpoint's events go strictly in feed order, one at a time: its position advances only
after a 2xx, so delivery is at least once (receivers dedupe on ``webhook-id``). A failure
schedules a retry with exponential backoff and jitter; an endpoint failing for
``webhook_retry_hours`` is disabled with the reason. Whatever fails for one endpoint (its
stored URL, a refused address, DNS, TLS, a timeout, an oversized answer) is such a failure,
never the dispatcher's; where deliveries may go and how much of an answer is read:
``app.events.webhooks.transport``. Pruning of old events and delivery logs runs here too, at most
hourly, leaving a ``maintenance_runs`` row.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import time

import httpx
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app.crypto.keyring import Keyring, UnreadableSecret, keyring_for
from app.db.urls import plain_url
from app.events.types import event_json, webhook_test_event
from app.events.webhooks import queue
from app.events.webhooks.addresses import RefusedURL, checked_url
from app.events.webhooks.signing import headers
from app.events.webhooks.transport import OversizedAnswer, post, webhook_client
from app.settings import Settings

logger = logging.getLogger(__name__)

BATCH = 100
LEASE_SECONDS = 60.0
PRUNE_EVERY_SECONDS = 3600.0
MAX_BACKOFF_SECONDS = 3600.0


#: The jitter of every backoff (a test passes its own seeded one).
_JITTER = random.Random()


def backoff(attempts: int, rng: random.Random = _JITTER) -> float:
    """Seconds before retry number ``attempts``: 2**attempts (2, 4, 8, ... capped at an hour)
    times a random factor in [0.5, 1.0], so failing endpoints do not retry in lockstep."""
    base = min(MAX_BACKOFF_SECONDS, 2.0 ** min(attempts, 20))
    return base * (0.5 + rng.random() / 2)


class Dispatcher:
    def __init__(self, settings: Settings, pool: AsyncConnectionPool | None, worker: str) -> None:
        self.settings = settings
        self.pool = pool
        self.worker = worker
        self._busy: dict[int, asyncio.Task] = {}
        self._last_prune = 0.0

    def _connection(self) -> contextlib.AbstractAsyncContextManager[AsyncConnection]:
        if self.pool is None:
            raise RuntimeError("this dispatcher has no pool: it only sends (send_test)")
        return self.pool.connection()

    @functools.cached_property
    def keyring(self) -> Keyring:
        """The keys of the endpoints' stored secrets (loaded at the first delivery; ``relay
        worker`` has checked them at start)."""
        return keyring_for(self.settings)

    def http_client(self) -> httpx.AsyncClient:
        """The client of the attempts: to public addresses only, unless allowed (transport)."""
        return webhook_client(self.settings)

    async def run(self, stopping: asyncio.Event) -> None:
        async with self.http_client() as client:
            self.client = client
            while not stopping.is_set():
                try:
                    await self.round()
                    await self._maybe_prune()
                except Exception:
                    logger.exception("webhook_round_failed", extra={"worker": self.worker})
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stopping.wait(), self.settings.webhook_poll_seconds)
            if self._busy:
                await asyncio.wait(list(self._busy.values()))

    async def round(self) -> None:
        """Claim what this process has room for and start a delivery task per endpoint."""
        room = self.settings.webhook_concurrency - len(self._busy)
        if room <= 0:
            return
        async with self._connection() as conn:
            await conn.set_autocommit(True)
            claimed = await queue.claim(conn, self.worker, room, LEASE_SECONDS)
        for endpoint in claimed:
            task = asyncio.create_task(self._deliver_all(endpoint))
            self._busy[endpoint["id"]] = task
            task.add_done_callback(functools.partial(self._finished, endpoint["id"]))

    def _finished(self, endpoint_id: int, _task: asyncio.Task) -> None:
        self._busy.pop(endpoint_id, None)

    async def _deliver_all(self, endpoint: dict) -> None:
        """Deliver the endpoint's pending events in order until one fails or none is left."""
        try:
            async with self._connection() as conn:
                await conn.set_autocommit(True)
                attempts = endpoint["attempts"]
                while events := await queue.next_events(conn, endpoint["id"], BATCH):
                    for event in events:
                        outcome = await self._attempt(endpoint, event_json(event))
                        outcome["attempt"] = attempts + 1
                        if outcome["delivered"]:
                            attempts = 0
                            await queue.delivered(conn, endpoint["id"], event, self.worker, outcome, LEASE_SECONDS)
                            continue
                        attempts += 1
                        status = await queue.failed(
                            conn, endpoint["id"], event, self.worker, outcome, backoff(attempts),
                            self.settings.webhook_retry_hours * 3600,
                        )
                        if status == "disabled":
                            logger.warning("webhook_endpoint_disabled", extra={"endpoint": endpoint["id"], "error": outcome["error"]})
                        return
                await queue.release(conn, endpoint["id"], self.worker)
        except Exception:
            logger.exception("webhook_delivery_crashed", extra={"endpoint": endpoint["id"]})

    async def _attempt(self, endpoint: dict, item: dict) -> dict:
        """One delivery attempt of the event ``item`` (its JSON form): its status code, error,
        duration and whether it delivered.
        Whatever fails (the stored URL, the secret, DNS, a refused address, TLS, a timeout,
        an oversized answer) is this endpoint's failed attempt, logged and retried like any
        other, never an error of the dispatcher."""
        started = time.monotonic()
        status, error = None, None
        try:
            status = await self._send(endpoint, item)
        except OversizedAnswer as exc:
            status, error = exc.status, str(exc)
        except UnreadableSecret as exc:
            # Nothing is sent unsigned: retried (a restored key) until the endpoint is disabled.
            error = f"signing secret unreadable: {exc}"
        except RefusedURL as exc:
            error = f"RefusedURL: {endpoint['url']!r}: {exc}"
        except TimeoutError:
            error = f"TimeoutError: no complete answer within {self.settings.webhook_timeout} s"
        except Exception as exc:  # noqa: BLE001 - any failure of this endpoint is its attempt's
            error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        ms = int((time.monotonic() - started) * 1000)
        delivered = error is None and status is not None and 200 <= status < 300
        return {"status": status, "error": error and error[:500], "ms": ms, "delivered": delivered}

    async def _send(self, endpoint: dict, item: dict) -> int:
        url = checked_url(endpoint["url"])  # again: a row may not have come from `webhooks add`
        secret = self.keyring.decrypt(endpoint["secret"])
        body = json.dumps(item, separators=(",", ":")).encode()
        sent = headers(secret, item["id"], int(time.time()), body)
        async with asyncio.timeout(self.settings.webhook_timeout):
            return await post(self.client, url, body, sent, self.settings.webhook_max_answer_bytes)

    async def _maybe_prune(self) -> None:
        # Asking the database is cheap but not free: this process asks at most every 6
        # minutes; the maintenance record makes the jobs themselves run at most hourly.
        if time.monotonic() - self._last_prune < PRUNE_EVERY_SECONDS / 10:
            return
        self._last_prune = time.monotonic()
        await self.prune()

    async def prune(self) -> dict[str, int | None]:
        """Delete events older than ``events_retention_days`` and delivery-log entries older
        than ``webhook_log_retention_days``, each job unless it ran in the last hour (any
        process); rows deleted per job, None for a job not run now."""
        settings = self.settings
        deleted: dict[str, int | None] = {}
        async with self._connection() as conn:
            await conn.set_autocommit(True)
            for job, table, column, days in (
                ("events_prune", "events", "occurred_at", settings.events_retention_days),
                ("webhook_log_prune", "webhook_deliveries", "created_at", settings.webhook_log_retention_days),
            ):
                deleted[job] = await queue.prune(conn, job, table, column, days, self.worker, PRUNE_EVERY_SECONDS)
                if deleted[job] is not None:
                    logger.info("maintenance_pruned", extra={"job": job, "deleted": deleted[job]})
        return deleted


async def send_test(settings: Settings, endpoint: dict) -> tuple[dict, dict]:
    """A signed ``webhook.test`` event sent to ``endpoint`` (id, organization_id, url, secret)
    at once, as the dispatcher sends every event (its client, addresses, signing, timeouts,
    answer limit), outside the endpoint's queue: (the event, the attempt's outcome)."""
    dispatcher = Dispatcher(settings, pool=None, worker="relay webhooks test")
    item = webhook_test_event(endpoint["organization_id"], endpoint["id"])
    async with dispatcher.http_client() as client:
        dispatcher.client = client
        return item, await dispatcher._attempt(endpoint, item)


async def run_dispatcher(settings: Settings, database_url: str, worker: str, stopping: asyncio.Event) -> None:
    """The dispatcher on a pool of its own until ``stopping`` is set (``relay worker``)."""
    pool = AsyncConnectionPool(
        plain_url(database_url), min_size=1, max_size=settings.webhook_concurrency + 2, open=False,
        kwargs={"autocommit": True, "application_name": "creator-relay:webhooks"},
    )
    async with pool:
        await Dispatcher(settings, pool, worker).run(stopping)
