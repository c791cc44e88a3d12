"""The worker loop: the clock enqueues, the claim loop takes tasks, the heartbeat holds them.

One ``Worker`` per process runs up to ``sync_worker_concurrency`` tasks at once. It is
also what ``relay sync backfill`` and ``relay sync run-once`` run, restricted to chosen
tasks and with a condition to exit on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import uuid
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from wsgiref.simple_server import WSGIServer

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app.crypto.keyring import keyring_for
from app.db.embedded import resolve_database_url
from app.db.urls import plain_url
from app.settings import Settings
from app.upstream.client import UpstreamClient
from sync import leases
from sync.clock import UpstreamClock, upstream_clock
from sync.engine import SyncContext, run_lease
from sync.leases import Lease
from sync.metrics import refresh_store_gauges, set_schedule_gauges
from sync.pacing import backfill_pacer
from sync.resources import REGISTRY
from sync.scheduler import start_clock
from sync.schedules import store as schedule_store
from sync.schedules.runner import run_schedules
from sync.staging_vacuum import StagingVacuum
from sync.upstream_budget import UpstreamBudget

logger = logging.getLogger(__name__)

DoneCheck = Callable[[AsyncConnection], Awaitable[bool]]


def worker_name(settings: Settings) -> str:
    return settings.worker_id or f"{socket.gethostname()}:{os.getpid()}"


def open_pool(settings: Settings, database_url: str) -> AsyncConnectionPool:
    """The worker's pool: autocommit connections (every transaction is explicit), one per
    running task plus the claim loop and the heartbeat."""
    return AsyncConnectionPool(
        plain_url(database_url),
        min_size=1,
        max_size=settings.sync_worker_concurrency + 3,
        open=False,
        kwargs={"autocommit": True, "application_name": "creator-relay:worker"},
    )


class Worker:
    """Claims and runs sync tasks until stopped (or until ``done`` says so)."""

    def __init__(
        self,
        settings: Settings,
        *,
        only: Iterable[tuple[int, str]] | None = None,
        resources: Iterable[str] | None = None,
        done: DoneCheck | None = None,
        enqueue: bool = True,
        schedule: bool = True,
        on_page: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.name = worker_name(settings)
        self.only = None if only is None else list(only)
        self.resources = None if resources is None else list(resources)
        self.done = done
        self.enqueue = enqueue
        self.schedule = schedule
        self.on_page = on_page
        self.stopping = asyncio.Event()
        self._running: dict[uuid.UUID, asyncio.Task] = {}
        self._wake = asyncio.Event()
        self._metrics_server: WSGIServer | None = None
        self._clock: UpstreamClock | None = None

    # --- lifecycle ---------------------------------------------------------------------

    async def run(self) -> None:
        settings = self.settings
        keyring = keyring_for(settings)  # before anything starts: no keys, no worker
        database_url = resolve_database_url(settings)
        self._install_signal_handlers()
        clock = upstream_clock(settings)
        async with open_pool(settings, database_url) as pool, UpstreamClient(settings) as upstream:
            ctx = SyncContext(
                settings=settings,
                pool=pool,
                upstream=upstream,
                clock=clock,
                worker_id=self.name,
                pacer=backfill_pacer(settings.backfill_requests_per_second),
                keyring=keyring,
                stopping=self.stopping,
                budget=UpstreamBudget(pool, settings.sync_upstream_rps),
                staging=StagingVacuum(settings.sync_staging_vacuum_rows),
            )
            metrics = self._serve_metrics()
            logger.info("worker_started", extra={"worker": self.name, "metrics_port": metrics})
            scheduler = None
            self._clock = clock
            if self.enqueue or self.schedule:
                await self._tick(pool)
            if self.schedule:
                # A coroutine function, not a lambda returning a coroutine: APScheduler
                # awaits only what it sees as a coroutine function.
                async def tick() -> None:
                    await self._tick(pool)

                scheduler = start_clock(
                    tick, settings.sync_tick_seconds, loop=asyncio.get_running_loop()
                )
            heartbeat = asyncio.create_task(self._heartbeat(pool))
            # `relay worker` also runs the due schedules (the one-shot commands do not).
            schedules = asyncio.create_task(run_schedules(ctx)) if self.schedule else None
            try:
                await self._claim_loop(ctx, pool)
            finally:
                if scheduler is not None:
                    scheduler.shutdown(wait=False)
                self.stopping.set()
                # Running tasks stop after their current page and release their leases.
                if self._running:
                    await asyncio.wait(list(self._running.values()))
                if schedules is not None:
                    await schedules  # it abandons its runs, for another worker to retry
                heartbeat.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await heartbeat
                await clock.aclose()
            if self._metrics_server is not None:
                self._metrics_server.shutdown()
                self._metrics_server.server_close()
            logger.info("worker_stopped", extra={"worker": self.name})

    def _serve_metrics(self) -> int | None:
        """Serve this process's metrics when a port is set (``relay worker`` only: the
        one-shot ``relay sync`` commands schedule nothing and serve nothing)."""
        port = self.settings.worker_metrics_port
        if not port or not self.schedule:
            return None
        from app.metrics import serve_metrics

        self._metrics_server = serve_metrics(self.settings.worker_metrics_host, port)
        return port

    def stop(self) -> None:
        self.stopping.set()
        self._wake.set()

    def _install_signal_handlers(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self.stop)

    # --- the three loops -----------------------------------------------------------------

    async def _tick(self, pool: AsyncConnectionPool) -> None:
        """The scheduler's job: enqueue missing tasks, then wake the claim loop."""
        try:
            async with pool.connection() as conn:
                added = await leases.enqueue(
                    conn,
                    self.resources or list(REGISTRY),
                    initial_backfill=self.settings.sync_initial_backfill,
                )
                await refresh_store_gauges(conn)
                if self.schedule:
                    assert self._clock is not None  # set in run(), before the first tick
                    now = datetime.fromtimestamp(await self._clock.now(), UTC)
                    set_schedule_gauges(await schedule_store.gauges(conn, now))
            if added:
                logger.info("sync_tasks_enqueued", extra={"worker": self.name, "added": added})
        except Exception:
            logger.exception("sync_tick_failed", extra={"worker": self.name})
        self._wake.set()

    async def _claim_loop(self, ctx: SyncContext, pool: AsyncConnectionPool) -> None:
        settings = self.settings
        while not self.stopping.is_set():
            claimed = False
            while len(self._running) < settings.sync_worker_concurrency and not self.stopping.is_set():
                async with pool.connection() as conn:
                    lease = await leases.claim(
                        conn, self.name, settings.sync_lease_seconds,
                        only=self.only, resources=self.resources,
                    )
                if lease is None:
                    break
                claimed = True
                self._start(ctx, lease)
            if self.done is not None and not self._running:
                async with pool.connection() as conn:
                    if await self.done(conn):
                        return
            if claimed:
                continue
            self._wake.clear()
            waiters = [asyncio.ensure_future(self._wake.wait()), *self._running.values()]
            await asyncio.wait(waiters, timeout=settings.sync_poll_seconds,
                               return_when=asyncio.FIRST_COMPLETED)
            waiters[0].cancel()

    def _start(self, ctx: SyncContext, lease: Lease) -> None:
        if lease.previous_owner is not None:
            logger.warning(
                "sync_lease_taken_over",
                extra={"account_id": lease.account_id, "resource": lease.resource,
                       "worker": self.name, "previous_owner": lease.previous_owner},
            )
        task = asyncio.create_task(self._run_one(ctx, lease))
        self._running[lease.token] = task

    async def _run_one(self, ctx: SyncContext, lease: Lease) -> None:
        try:
            await run_lease(ctx, lease, on_page=self.on_page)
        except asyncio.CancelledError:
            logger.warning("sync_task_cancelled", extra={"account_id": lease.account_id,
                                                          "resource": lease.resource})
        except Exception:
            # The runner records its own failures; this is a bug or a lost database.
            logger.exception("sync_task_crashed", extra={"account_id": lease.account_id,
                                                          "resource": lease.resource})
        finally:
            self._running.pop(lease.token, None)
            self._wake.set()

    async def _heartbeat(self, pool: AsyncConnectionPool) -> None:
        """Extend the leases of running tasks; cancel any task whose lease was lost."""
        period = max(0.5, self.settings.sync_lease_seconds / 3)
        while True:
            await asyncio.sleep(period)
            tokens = list(self._running)
            if not tokens:
                continue
            try:
                async with pool.connection() as conn:
                    alive = await leases.heartbeat(conn, tokens, self.settings.sync_lease_seconds)
            except Exception:
                logger.exception("sync_heartbeat_failed", extra={"worker": self.name})
                continue
            for token in set(tokens) - alive:
                task = self._running.get(token)
                if task is not None:
                    logger.warning("sync_lease_lost", extra={"worker": self.name})
                    task.cancel()
