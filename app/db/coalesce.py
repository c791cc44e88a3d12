"""Concurrent calls answered together: one database round trip for many requests.

``await coalescer(item)`` returns the item's result. A call that finds nothing running and
nothing waiting runs its item alone at once, in the caller's own task (an idle process pays
no delay, and no task, future or hand-over: at one request at a time that was a tenth of a
store page's CPU); the calls that come meanwhile wait for it to return, and the next batch takes
every item queued meanwhile (at most ``max_batch``). So under load many requests share one
statement, and each waits for at most one statement before its own. The gate's metering
(``app.gate.meter``) and the store's page reads (``app.store.batched``) are both this.

``run(items)`` answers one result per item, in order. When it fails and ``retry_alone(exc)``
says the failure was one item's (the statement rolled back whole on a live connection),
each item of the batch is run alone, so only the one that breaks the statement fails;
otherwise every item of the batch gets the exception.

Under concurrency (the previous batch held more than one item) a batch may wait
``linger`` seconds before it leaves, to take more items along.

One statement in flight caps a process at ``max_batch`` items per statement time: where
the database is slower than the process (many cores, a busy or distant server), requests
queue behind it while the server's other cores idle. So when ``split_at`` items wait
behind a running batch, another batch leaves beside it, up to ``in_flight`` at once; below
that the items wait and share the next statement, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Coalescer(Generic[T, R]):
    def __init__(
        self,
        run: Callable[[list[T]], Awaitable[list[R]]],
        *,
        max_batch: int = 128,
        linger: float = 0.0,
        in_flight: int = 1,
        split_at: int | None = None,
        retry_alone: Callable[[Exception], bool] = lambda _: False,
    ) -> None:
        if in_flight < 1:
            raise ValueError("in_flight must be at least 1")
        self._run = run
        self._max_batch = max_batch
        self._linger = linger
        self._in_flight = in_flight
        self._split_at = split_at if split_at is not None else max_batch
        self._retry_alone = retry_alone
        self._last_batch = 0
        self._queue: list[tuple[T, asyncio.Future[R]]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        #: The task of a call running its item alone (``_alone``), if any.
        self._inline: asyncio.Task | None = None

    @property
    def idle(self) -> bool:
        """Nothing queued and no batch running: dropping it loses nothing."""
        return not self._queue and not self._tasks and self._inline is None

    async def __call__(self, item: T) -> R:
        if self._inline is None and not self._tasks and not self._queue:
            return await self._alone(item)
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        running = len(self._tasks) + (self._inline is not None)
        if not running or (running < self._in_flight and len(self._queue) >= self._split_at):
            self._start()
        return await future

    async def _alone(self, item: T) -> R:
        """Run one item in the caller's task; the items queued meanwhile leave when it is done."""
        self._inline = asyncio.current_task()
        try:
            return (await self._run([item]))[0]
        finally:
            self._inline = None
            if self._queue and not self._tasks:
                self._start()

    def _start(self) -> None:
        task = asyncio.create_task(self._drain())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)  # also a task cancelled before it began

    async def _settle(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        try:
            results = await self._run([item for item, _ in batch])
        except Exception as exc:
            if len(batch) > 1 and self._retry_alone(exc):
                for waiting in batch:  # one by one: only the item that breaks it fails
                    await self._settle([waiting])
                return
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():  # its caller may have been cancelled meanwhile
                future.set_result(result)

    async def _drain(self) -> None:
        """Run batches while items wait (one of up to ``in_flight`` such loops)."""
        try:
            while self._queue:
                if self._linger and self._last_batch > 1 and len(self._queue) < self._max_batch:
                    await asyncio.sleep(self._linger)
                batch = self._queue[: self._max_batch]
                self._last_batch = len(batch)
                del self._queue[: self._max_batch]
                try:
                    await self._settle(batch)
                except BaseException:  # cancelled (shutdown): nobody is left waiting
                    for _, future in [*batch, *self._queue]:
                        future.cancel()
                    self._queue.clear()
                    raise
        finally:
            self._tasks.discard(asyncio.current_task())  # at once: a call from here on starts a batch

    async def close(self) -> None:
        if self._inline is not None:  # its caller gets the CancelledError a queued call would
            self._inline.cancel()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for _, future in self._queue:
            future.cancel()
        self._queue.clear()
