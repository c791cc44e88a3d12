"""The ledger's final statuses: written after the response, in batches, off the request path.

The gate statement writes a request's ledger row before the handler runs; the HTTP status
is known only after it. Statuses the gate decides itself (403, 404) are in the row already;
the others are handed to ``StatusRecorder.record`` and written a moment later, many in one
statement. Credits and counters never wait for this: the gate statement settled them.
A process that dies loses at most the statuses of its last interval; those rows keep
status NULL ("outcome not recorded").
"""

from __future__ import annotations

import asyncio
import logging

from psycopg_pool import AsyncConnectionPool

logger = logging.getLogger(__name__)

# Bookkeeping: the transaction does not wait for the WAL flush (set inside the statement).
STATUS_SQL = """
WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
UPDATE usage_ledger l SET status = v.status
FROM unnest(%(ids)s::bigint[], %(statuses)s::smallint[]) AS v(id, status), async_commit
WHERE l.id = v.id
"""


class StatusRecorder:
    """``record`` appends to a list; a background task writes the list every ``interval``
    seconds (at once when ``batch`` statuses wait), in one statement; ``close`` writes what
    is left. A failed write keeps the statuses for the next attempt."""

    def __init__(self, pool: AsyncConnectionPool, *, interval: float = 0.2, batch: int = 500):
        self._pool = pool
        self._interval = interval
        self._batch = batch
        self._pending: list[tuple[int, int]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="ledger-status-recorder")

    def record(self, ledger_id: int, status: int) -> None:
        self._pending.append((ledger_id, status))
        if len(self._pending) >= self._batch:
            self._wake.set()

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        ids, statuses = zip(*pending, strict=True)
        try:
            async with self._pool.connection() as conn:
                await conn.execute(STATUS_SQL, {"ids": list(ids), "statuses": list(statuses)})
        except Exception:
            self._pending[:0] = pending
            logger.warning("ledger_status_flush_failed", extra={"pending": len(self._pending)}, exc_info=True)

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=self._interval)
            except TimeoutError:
                pass
            self._wake.clear()
            await self.flush()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        await self.flush()
