"""What ``GET /status`` shows of an organization, read at most once per ``seconds`` per
process (``RELAY_STATUS_CACHE_SECONDS``).

The page's sync rows and 90-day earnings chart are its whole database cost (the earnings
of every account over 90 days). Views within ``seconds`` of a read share it; views that
come while it runs wait for it rather than start their own. A read that fails is not kept.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class RecentReads(Generic[T]):
    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        #: Per organization: when its read began, and the read (done or running).
        self._held: dict[int, tuple[float, asyncio.Future[T]]] = {}
        #: Reads started (the page's database work, in tests and metrics of cost).
        self.reads = 0

    async def get(self, organization_id: int, read: Callable[[], Awaitable[T]]) -> T:
        now = time.monotonic()
        held = self._held.get(organization_id)
        if held is None or (held[1].done() and now - held[0] >= self._seconds):
            self._drop_ended(now)
            held = now, asyncio.ensure_future(read())
            held[1].add_done_callback(lambda done: self._forget_failed(organization_id, done))
            self._held[organization_id] = held
            self.reads += 1
        # Shielded: a view whose own request ends does not cancel the read the others wait for.
        return await asyncio.shield(held[1])

    def _forget_failed(self, organization_id: int, done: asyncio.Future[T]) -> None:
        if done.cancelled() or done.exception() is not None:
            if self._held.get(organization_id, (0.0, None))[1] is done:
                del self._held[organization_id]

    def _drop_ended(self, now: float) -> None:
        """Forget every organization's read that is over and out of date (bounded memory:
        what is held is what was viewed in the last ``seconds``)."""
        for organization_id, (began, read) in list(self._held.items()):
            if read.done() and now - began >= self._seconds:
                del self._held[organization_id]
