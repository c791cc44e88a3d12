"""Concurrent calls answered together: one database round trip for many requests.

``await coalescer(item)`` queues the item and returns its result. A call that finds no
batch running starts one at once (an idle process pays no delay); the others wait for the
running batch to return, and the next batch takes every item queued meanwhile (at most
``max_batch``). So under load many requests share one statement, and each waits for at most
one statement before its own. The gate's metering (``app.gate.batching``) and the store's
page reads (``app.store.batched``) are both this.

``run(items)`` answers one result per item, in order. When it fails and ``retry_alone(exc)``
says the failure was one item's (the statement rolled back whole on a live connection),
each item of the batch is run alone, so only the one that breaks the statement fails;
otherwise every item of the batch gets the exception.

Under concurrency (the previous batch held more than one item) a batch may wait
``linger`` seconds before it leaves, to take more items along.
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
        retry_alone: Callable[[Exception], bool] = lambda _: False,
    ) -> None:
        self._run = run
        self._max_batch = max_batch
        self._linger = linger
        self._retry_alone = retry_alone
        self._last_batch = 0
        self._queue: list[tuple[T, asyncio.Future[R]]] = []
        self._draining = False
        self._task: asyncio.Task[None] | None = None

    async def __call__(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        if not self._draining:
            self._draining = True
            self._task = asyncio.create_task(self._drain())
        return await future

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
        """Run batches while items wait."""
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
            self._draining = False

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for _, future in self._queue:
            future.cancel()
        self._queue.clear()
