"""The meter: coalesces the concurrent requests of one process into one gate statement.

``await meter(request)`` queues the request and returns its ``GateResult``. A request that
finds no batch running starts one at once (an idle process pays no delay); the others wait
for the running batch to return, and the next batch takes every request queued meanwhile
(at most ``max_batch``). Each request waits for exactly one execution of the statement
(two when its batch failed, below), and its result is what it would have been alone:
admission is per organization, in arrival order, under the organization row's lock.

A request's failure never fails another: when a batch's statement fails while the
connection stays usable (the statement rolled back whole), each request of the batch is
retried alone, so only the one that breaks the statement fails. A broken connection fails
the batch: whether it committed is unknown, and counting twice is worse than a 5xx.

The statements run on the meter's own autocommitted connection, opened on first use from
the pool's settings and replaced when it breaks: no pool checkout per batch, and psycopg
keeps the statement prepared on it. A statement the server refused because it was shutting
the connection down (after a restart) surely did not commit and runs once more.

Under concurrency (the previous batch held more than one request) a batch waits
``linger`` seconds before it leaves, to take more requests along. Half a millisecond: a
closed-loop client waits the linger on every request, and at 4 ms eight connections got a
sixth of the minimal app's throughput on an idle machine (docs/benchmarks.md, 14:48 run).
"""

from __future__ import annotations

import asyncio

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app.gate.statement import GateResult, MeterRequest, run_gate_statement

_Waiting = list[tuple[MeterRequest, "asyncio.Future[GateResult]"]]


class Meter:
    def __init__(self, pool: AsyncConnectionPool, *, max_batch: int = 128, linger: float = 0.0005):
        self._pool = pool
        self._max_batch = max_batch
        self._linger = linger
        self._last_batch = 0
        self._queue: _Waiting = []
        self._draining = False
        self._conn: AsyncConnection | None = None
        self._task: asyncio.Task[None] | None = None
        #: Statements run and requests metered by this process (their ratio: the batch size).
        self.statements = 0
        self.metered = 0

    async def __call__(self, request: MeterRequest) -> GateResult:
        future: asyncio.Future[GateResult] = asyncio.get_running_loop().create_future()
        self._queue.append((request, future))
        if not self._draining:
            self._draining = True
            self._task = asyncio.create_task(self._drain())
        return await future

    async def _connection(self) -> AsyncConnection:
        if self._conn is None or self._conn.closed or self._conn.broken:
            # Bounded like the pool's checkout: an unreachable server is a prompt 503.
            settings = {**(self._pool.kwargs or {}), "autocommit": True}
            try:
                async with asyncio.timeout(self._pool.timeout):
                    self._conn = await AsyncConnection.connect(self._pool.conninfo, **settings)
            except TimeoutError:
                raise psycopg.OperationalError("the meter's connection attempt timed out") from None
        return self._conn

    async def _run(self, requests: list[MeterRequest]) -> list[GateResult]:
        try:
            return await self._run_once(requests)
        except psycopg.errors.AdminShutdown:
            # The server ended this connection's backend (a restart) before or while the
            # statement ran, so it did not commit: once more on a fresh connection.
            return await self._run_once(requests)

    async def _run_once(self, requests: list[MeterRequest]) -> list[GateResult]:
        conn = await self._connection()
        try:
            results = await run_gate_statement(conn, requests)
        except BaseException:
            if conn.broken:
                await conn.close()
            raise
        self.statements += 1
        self.metered += len(requests)
        return results

    def _retriable(self, exc: Exception, batch: _Waiting) -> bool:
        """A statement error on a live connection rolled the whole batch back: safe to retry."""
        conn = self._conn
        return (
            len(batch) > 1
            and isinstance(exc, psycopg.Error)
            and conn is not None
            and not conn.closed
            and not conn.broken
        )

    async def _settle(self, batch: _Waiting) -> None:
        try:
            results = await self._run([request for request, _ in batch])
        except Exception as exc:
            if not self._retriable(exc, batch):
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                return
            for waiting in batch:  # one by one: only the request that breaks it fails
                await self._settle([waiting])
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():  # its request may have been cancelled meanwhile
                future.set_result(result)

    async def _drain(self) -> None:
        """Run batches while requests wait."""
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
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
