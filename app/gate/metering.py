"""Metering: the one statement that meters a batch of requests, and the ledger's statuses.

``GATE_SQL`` meters several requests of one API process at once -- the requests that
arrived while the previous batch was in flight -- in one round trip and one transaction.
For each request it does:

1. authentication: the key's digest is looked up (revoked keys do not match);
2. the rate windows: the rows of the organizations in the batch are locked (``FOR NO KEY
   UPDATE``, in id order so that two batches never deadlock) and read at their newest
   version, so every API process sees the counts of every other. Of an organization's
   ``n`` requests in the batch, the first ``k = least(n, room in the minute, room in the
   day)`` (in arrival order) are counted in both windows and take one credit each off the
   balance while it is positive; one ``UPDATE`` of the row records all ``k``. Because the
   row stays locked until the transaction ends, exactly ``min(N, L)`` of N concurrent
   requests against a remaining allowance L are counted, whichever process and batch they
   come in. A request that does not fit is counted nowhere: no ledger row, no credit (the
   429);
3. the permission (the key's role grants the route's permission) and the account (it is
   connected to the key's organization), read in the same statement;
4. the ledger: one row per counted request (its id drawn in the statement, so each request
   knows its row), written in the same statement, so counters, balance and ledger change
   together or not at all.

It returns one row per request: who the caller is, whether the windows had room, the
permission and account verdicts, the account's upstream credential, whether the credit
came off the balance, and the numbers for ``_meta._rate_limits``.

``Meter`` does the batching: each request waits for exactly one execution of the
statement (a batch of one when the process is idle), at most ``max_in_flight`` batches
run at once, and the statement is the same text every time (psycopg prepares it after
``prepare_threshold`` executions).

The transaction commits with ``synchronous_commit = off`` (set transaction-locally from
inside the statement): the API does not wait for the WAL flush. If the PostgreSQL server
crashes, the last few hundred milliseconds of metering may be lost -- all of a request's
effects together (counters, balance and ledger stay consistent); an API process crash loses
nothing that was committed. See docs/api-decisions.md.

The final HTTP status is known only after the handler. Statuses the gate decides itself
(403, 404) are written by the statement; the others are queued after the response and
written by ``StatusRecorder`` in batches, off the request path.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app.envelope import Credits, Meta, RateLimits

logger = logging.getLogger(__name__)

GATE_SQL = """
WITH clock AS (
    SELECT date_trunc('minute', now()) AS minute_start,
           date_trunc('day', now(), 'UTC') AS day_start,
           -- this statement is its own transaction: do not wait for the WAL flush
           set_config('synchronous_commit', 'off', true) AS async_commit
),
request AS (
    SELECT r.n, r.key_hash, r.permission, r.account_id, r.method, r.route
    FROM unnest(%(key_hashes)s::bytea[], %(permissions)s::text[], %(account_ids)s::bigint[],
                %(methods)s::text[], %(routes)s::text[])
         WITH ORDINALITY AS r(key_hash, permission, account_id, method, route, n)
),
caller AS (
    -- place: the request's rank among its organization's requests in this batch
    SELECT r.n, k.id AS key_id, k.key_hash, k.organization_id, k.role,
           row_number() OVER (PARTITION BY k.organization_id ORDER BY r.n) AS place
    FROM request r JOIN api_keys k ON k.key_hash = r.key_hash AND k.revoked_at IS NULL
),
wanted AS (
    SELECT organization_id, count(*) AS n FROM caller GROUP BY organization_id
),
locked AS (
    -- The newest version of each organization row, locked until the transaction ends (in
    -- id order: two batches lock their organizations in the same order, so never deadlock).
    SELECT o.id, w.n, o.limit_minute, o.limit_day, o.credit_balance, o.minute_window,
           o.day_window,
           CASE WHEN o.minute_window >= c.minute_start THEN o.minute_used ELSE 0 END AS minute_used,
           CASE WHEN o.day_window >= c.day_start THEN o.day_used ELSE 0 END AS day_used,
           c.minute_start, c.day_start
    FROM organizations o JOIN wanted w ON w.organization_id = o.id CROSS JOIN clock c
    ORDER BY o.id
    FOR NO KEY UPDATE OF o
),
plan AS (
    -- admitted: how many of the organization's requests (the first ones) fit both windows
    SELECT l.*,
           least(l.n, greatest(l.limit_minute - l.minute_used, 0),
                 greatest(l.limit_day - l.day_used, 0)) AS admitted
    FROM locked l
),
charged AS (
    -- A request that started just before a window ended but got the row lock after a newer
    -- request opened the next window is counted in the newer one: windows never go back.
    UPDATE organizations o SET
        minute_window = greatest(p.minute_window, p.minute_start),
        minute_used = p.minute_used + p.admitted,
        day_window = greatest(p.day_window, p.day_start),
        day_used = p.day_used + p.admitted,
        credit_balance = greatest(p.credit_balance - p.admitted, 0),
        last_charge_debited = p.credit_balance >= p.admitted
    FROM plan p
    WHERE o.id = p.id AND p.admitted > 0
    RETURNING o.id
),
judged AS (
    SELECT cr.n, cr.key_id, cr.key_hash, cr.organization_id, cr.place,
           cr.place <= p.admitted AS counted,
           cr.place <= p.credit_balance AS funded,
           EXISTS (
               SELECT 1 FROM role_permissions rp
               WHERE rp.role = cr.role AND rp.permission = r.permission
           ) AS permitted,
           a.id IS NOT NULL AS owned,
           a.upstream_token,
           r.account_id, r.method, r.route,
           p.limit_minute, p.limit_day, p.minute_used, p.day_used, p.admitted,
           greatest(now(), p.minute_window, p.minute_start) AS counted_at
    FROM caller cr
    JOIN request r ON r.n = cr.n
    JOIN plan p ON p.id = cr.organization_id
    LEFT JOIN accounts a ON a.id = r.account_id AND a.organization_id = cr.organization_id
),
verdict AS (
    SELECT j.*,
           CASE
               WHEN NOT j.permitted THEN 403
               WHEN j.account_id IS NOT NULL AND NOT j.owned THEN 404
           END AS status,
           CASE WHEN j.counted
                THEN nextval(pg_get_serial_sequence('usage_ledger', 'id'))
           END AS ledger_id
    FROM judged j
),
ledger AS (
    INSERT INTO usage_ledger
        (id, organization_id, api_key_id, account_id, method, route, status, credits, debited,
         created_at)
    SELECT v.ledger_id, v.organization_id, v.key_id, v.account_id, v.method, v.route, v.status,
           1, v.funded, v.counted_at
    FROM verdict v
    WHERE v.counted
    ORDER BY v.n
)
SELECT r.n,
       v.key_id,
       v.key_hash,
       coalesce(v.counted, false) AS counted,
       coalesce(v.permitted, false) AS permitted,
       v.status AS verdict,
       v.upstream_token,
       coalesce(v.counted AND v.funded, false) AS debited,
       v.ledger_id,
       coalesce(v.limit_minute, 0) AS limit_minute,
       coalesce(v.limit_day, 0) AS limit_day,
       coalesce(v.minute_used + CASE WHEN v.counted THEN v.place ELSE v.admitted END, 0)
           AS minute_used,
       coalesce(v.day_used + CASE WHEN v.counted THEN v.place ELSE v.admitted END, 0) AS day_used,
       now() AS at
FROM request r
LEFT JOIN verdict v ON v.n = r.n
ORDER BY r.n
"""


@dataclass(frozen=True, slots=True)
class MeterRequest:
    """What the gate statement needs to know about one request."""

    key_hash: bytes
    permission: str
    account_id: int | None
    method: str
    route: str


@dataclass(frozen=True, slots=True)
class GateResult:
    """What the gate statement found out about one request."""

    key_id: int | None
    key_hash: bytes | None
    counted: bool
    permitted: bool
    verdict: int | None
    upstream_token: str | None
    debited: bool
    ledger_id: int | None
    limit_minute: int
    limit_day: int
    minute_used: int
    day_used: int
    at: datetime

    @property
    def authenticated(self) -> bool:
        return self.key_id is not None

    def rate_limits(self) -> RateLimits:
        return RateLimits(
            limit_minute=self.limit_minute,
            remaining_minute=max(self.limit_minute - self.minute_used, 0),
            limit_day=self.limit_day,
            remaining_day=max(self.limit_day - self.day_used, 0),
        )

    def meta(self, cache: dict[str, Any] | None = None) -> Meta:
        """``_meta``; ``cache`` is a store-served answer's ``_meta._cache`` (or None)."""
        return Meta(credits=Credits(used=self.credits_used), rate_limits=self.rate_limits(), cache=cache)

    @property
    def credits_used(self) -> int:
        return 1 if self.counted else 0

    def retry_after(self) -> int:
        """Whole seconds until every exhausted window has ended (a 429's ``Retry-After``)."""
        if self.day_used >= self.limit_day:
            day_start = self.at.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            end = day_start + timedelta(days=1)
        else:
            end = self.at.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return max(math.ceil((end - self.at).total_seconds()), 1)


def _gate_params(requests: list[MeterRequest]) -> dict[str, list]:
    return {
        "key_hashes": [r.key_hash for r in requests],
        "permissions": [r.permission for r in requests],
        "account_ids": [r.account_id for r in requests],
        "methods": [r.method for r in requests],
        "routes": [r.route for r in requests],
    }


async def run_gate_statement(conn: AsyncConnection, requests: list[MeterRequest]) -> list[GateResult]:
    """Meter ``requests`` in one statement on ``conn`` (in autocommit: one round trip, one
    transaction, no BEGIN or COMMIT); the results in the requests' order."""
    cursor = await conn.execute(GATE_SQL, _gate_params(requests))
    rows = await cursor.fetchall()
    assert len(rows) == len(requests)  # the statement returns one row per request, in order
    # Each row is the request's position, then GateResult's fields in declaration order.
    return [GateResult(*row[1:]) for row in rows]


class Meter:
    """Meters the requests of one process, coalescing concurrent ones into one statement.

    ``await meter(request)`` queues the request and returns its ``GateResult``. A request
    that finds fewer than ``max_in_flight`` batches running starts one at once (an idle
    process pays no delay); the others wait for the running batch to return, and the next
    batch takes every request queued meanwhile (at most ``max_batch``). Either way each
    request waits for exactly one execution of the gate statement, and its result is what
    it would have been alone: admission is per organization, in arrival order, under the
    organization row's lock.

    One batch in flight per process (the default) makes the batches as large as the load
    allows; a batch that waits for an organization's row lock (held by another process's
    batch for the few hundred microseconds of its statement) delays the requests queued
    behind it by as much. When the previous batch held more than one request (the process
    is serving concurrent requests), the next one waits ``linger`` seconds (4 ms) before it
    leaves, so that it takes more requests along: under load each statement then meters
    about a dozen requests instead of two or three, which costs less CPU per request in the
    API process and in PostgreSQL; a process serving one request at a time never waits.
    (2 ms gave batches of ~8 and ~5% less gated throughput in the gate benchmark; the
    price is up to 4 ms more latency for a gated request under concurrency.)

    The statements run on the meter's own autocommitted connections (one per batch in
    flight), opened on first use from the pool's connection settings and replaced when one
    breaks: no pool checkout and no autocommit switching per batch, and psycopg keeps the
    statement prepared on them.
    """

    def __init__(
        self, pool: AsyncConnectionPool, *, max_in_flight: int = 1, max_batch: int = 128, linger: float = 0.004
    ):
        self._pool = pool
        self._linger = linger
        self._last_batch = 0
        self._max_in_flight = max_in_flight
        self._max_batch = max_batch
        self._queue: list[tuple[MeterRequest, asyncio.Future[GateResult]]] = []
        self._in_flight = 0
        self._idle: list[AsyncConnection] = []
        self._tasks: set[asyncio.Task[None]] = set()
        #: Statements run and requests metered by this process (their ratio: the batch size).
        self.statements = 0
        self.metered = 0

    async def __call__(self, request: MeterRequest) -> GateResult:
        future: asyncio.Future[GateResult] = asyncio.get_running_loop().create_future()
        self._queue.append((request, future))
        if self._in_flight < self._max_in_flight:
            self._in_flight += 1
            task = asyncio.create_task(self._drain())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await future

    async def _run(self, requests: list[MeterRequest]) -> list[GateResult]:
        conn = self._idle.pop() if self._idle else None
        if conn is None:
            # A bounded wait when the server is unreachable, like the pool's checkout timeout.
            settings = {"connect_timeout": 10, **(self._pool.kwargs or {}), "autocommit": True}
            conn = await AsyncConnection.connect(self._pool.conninfo, **settings)
        try:
            results = await run_gate_statement(conn, requests)
        except BaseException:
            if conn.closed or conn.broken:
                await conn.close()
                conn = None
            raise
        finally:
            if conn is not None:
                self._idle.append(conn)
        return results

    async def _drain(self) -> None:
        """Run batches while requests wait, then give the slot back."""
        try:
            while self._queue:
                if self._linger and self._last_batch > 1 and len(self._queue) < self._max_batch:
                    await asyncio.sleep(self._linger)
                batch = self._queue[: self._max_batch]
                self._last_batch = len(batch)
                del self._queue[: self._max_batch]
                try:
                    results = await self._run([request for request, _ in batch])
                except Exception as exc:  # the requests of the batch fail with it (a 500)
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                except BaseException:  # cancelled (shutdown): nobody is left waiting
                    for _, future in [*batch, *self._queue]:
                        future.cancel()
                    self._queue.clear()
                    raise
                self.statements += 1
                self.metered += len(batch)
                for (_, future), result in zip(batch, results, strict=True):
                    if not future.done():  # its request may have been cancelled meanwhile
                        future.set_result(result)
        finally:
            self._in_flight -= 1

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for _, future in self._queue:  # a drain cancelled while it lingered leaves these
            future.cancel()
        self._queue.clear()
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()


# --- final statuses, written after the response ------------------------------------------

_STATUS_SQL = """
UPDATE usage_ledger l SET status = v.status
FROM unnest(%(ids)s::bigint[], %(statuses)s::smallint[]) AS v(id, status)
WHERE l.id = v.id
"""


class StatusRecorder:
    """Writes ledger rows' final statuses in batches, off the request path.

    ``record`` only appends to a list. A background task flushes it every ``interval``
    seconds (or as soon as ``batch`` statuses wait), in one statement; ``close`` flushes
    what is left. Credits and counters never wait for this: they were settled by the gate
    statement. A process that dies loses at most the statuses of its last interval; those
    rows keep status NULL ("outcome not recorded").
    """

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

    async def flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        ids, statuses = zip(*pending, strict=True)
        try:
            async with self._pool.connection() as conn:
                await conn.execute(
                    "SELECT set_config('synchronous_commit', 'off', true)"
                )
                await conn.execute(_STATUS_SQL, {"ids": list(ids), "statuses": list(statuses)})
        except Exception:
            # Statuses are bookkeeping: keep them for the next attempt rather than lose them.
            self._pending[:0] = pending
            logger.warning("ledger_status_flush_failed", exc_info=True)

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
