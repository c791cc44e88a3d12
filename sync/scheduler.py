"""APScheduler as the clock, and nothing more.

Every worker process runs its own ``AsyncIOScheduler`` with the in-memory job store: one
interval job that *enqueues* work (``sync.leases.enqueue``: a task row per active account
and resource, inserted idempotently). It never runs a sync itself. Whether a task is due
is a column of its row (``due_at``, set by whoever ran it last from the resource's
interval), and who runs it is decided by the lease claim. So any number of schedulers may
tick at once: the ticks are idempotent inserts, and a task is run by exactly one worker.
(APScheduler's shared job stores are not safe for several schedulers; we never share one.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

logger = logging.getLogger(__name__)


def start_clock(
    tick: Callable[[], Awaitable[None]], seconds: float, *, loop: asyncio.AbstractEventLoop
) -> AsyncIOScheduler:
    """Start a scheduler that calls ``tick`` every ``seconds`` (never two ticks at once)."""
    scheduler = AsyncIOScheduler(event_loop=loop, timezone="UTC")
    scheduler.add_job(
        tick,
        IntervalTrigger(seconds=seconds),
        id="enqueue-due-work",
        max_instances=1,
        coalesce=True,  # a tick missed while the loop was busy runs once, not many times
        misfire_grace_time=None,
    )
    scheduler.start()
    return scheduler
