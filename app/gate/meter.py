"""The meter: coalesces the concurrent requests of one process into one gate statement.

``await meter(request)`` queues the request and returns its ``GateResult``: the batching is
``app.db.coalesce.Coalescer``'s (a request that finds no batch running starts one at once;
the others go together in the next). Its result is what it would have been alone:
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
``linger`` seconds before it leaves, to take more requests along. It is kept short: a
closed-loop client waits the linger on every request (measured: docs/benchmarks.md).
Most requests no longer come here at all: the gatekeeper admits them from an allowance
(``app.gate.keeper``).
"""

from __future__ import annotations

import psycopg
from psycopg_pool import AsyncConnectionPool

from app.db.coalesce import Coalescer
from app.db.pool import OwnConnection
from app.gate.statement import GateResult, MeterRequest, run_gate_statement


class Meter:
    def __init__(self, pool: AsyncConnectionPool, *, max_batch: int = 128, linger: float = 0.0005):
        self._conn = OwnConnection(pool)
        self._batches = Coalescer(self._run, max_batch=max_batch, linger=linger, retry_alone=self._retriable)
        #: Statements run and requests metered by this process (their ratio: the batch size).
        self.statements = 0
        self.metered = 0

    async def __call__(self, request: MeterRequest) -> GateResult:
        return await self._batches(request)

    async def _run(self, requests: list[MeterRequest]) -> list[GateResult]:
        try:
            return await self._run_once(requests)
        except psycopg.errors.AdminShutdown:
            # The server ended this connection's backend (a restart) before or while the
            # statement ran, so it did not commit: once more on a fresh connection.
            return await self._run_once(requests)

    async def _run_once(self, requests: list[MeterRequest]) -> list[GateResult]:
        conn = await self._conn.get()
        try:
            results = await run_gate_statement(conn, requests)
        except BaseException:
            await self._conn.drop_if_broken()
            raise
        self.statements += 1
        self.metered += len(requests)
        return results

    def _retriable(self, exc: Exception) -> bool:
        """A statement error on a live connection rolled the whole batch back: safe to retry."""
        return isinstance(exc, psycopg.Error) and self._conn.usable

    async def close(self) -> None:
        await self._batches.close()
        await self._conn.close()
