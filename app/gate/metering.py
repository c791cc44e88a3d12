"""Metering: the one statement every authenticated request costs, and the ledger's statuses.

``GATE_SQL`` does, in one round trip and one transaction:

1. authentication: the key's digest is looked up (revoked keys do not match);
2. the rate windows: one ``UPDATE`` of the organization row counts the request in the
   current UTC minute and day *only if both have room*, and takes one credit off the balance
   while it is positive. The row lock makes concurrent requests of one organization (from
   any API process) queue on that row, and PostgreSQL re-checks the ``WHERE`` against the
   newest row version after the wait, so exactly ``min(N, L)`` of N concurrent requests
   against a remaining allowance L are counted. A request that does not fit is counted
   nowhere: no ledger row, no credit (the 429);
3. the permission (the key's role grants the route's permission) and the account (it is
   connected to the key's organization), read in the same statement;
4. the ledger: one row per counted request, inserted from the ``UPDATE``'s ``RETURNING``,
   so counters, balance and ledger change together or not at all.

It returns everything the rest of the gate needs: who the caller is, whether the windows
had room, the permission and account verdicts, the account's upstream credential, whether
the credit came off the balance, and the numbers for ``_meta._rate_limits``.

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

from psycopg import AsyncConnection
from psycopg.rows import dict_row
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
caller AS (
    SELECT k.id AS key_id, k.key_hash, k.organization_id, k.role
    FROM api_keys k
    WHERE k.key_hash = %(key_hash)s AND k.revoked_at IS NULL
),
charged AS (
    -- A request that started just before a window ended but got the row lock after a newer
    -- request opened the next window is counted in the newer one: windows never go back.
    UPDATE organizations o SET
        minute_window = greatest(o.minute_window, c.minute_start),
        minute_used = CASE WHEN o.minute_window >= c.minute_start
                           THEN o.minute_used + 1 ELSE 1 END,
        day_window = greatest(o.day_window, c.day_start),
        day_used = CASE WHEN o.day_window >= c.day_start THEN o.day_used + 1 ELSE 1 END,
        credit_balance = greatest(o.credit_balance - 1, 0),
        last_charge_debited = o.credit_balance > 0
    FROM caller, clock c
    WHERE o.id = caller.organization_id
      AND (o.minute_window IS NULL OR o.minute_window < c.minute_start
           OR o.minute_used < o.limit_minute)
      AND (o.day_window IS NULL OR o.day_window < c.day_start OR o.day_used < o.limit_day)
    RETURNING o.id, o.minute_window, o.minute_used, o.day_used, o.last_charge_debited
),
permitted AS (
    SELECT EXISTS (
        SELECT 1 FROM role_permissions rp JOIN caller ON rp.role = caller.role
        WHERE rp.permission = %(permission)s
    ) AS ok
),
owned AS (
    SELECT a.upstream_token
    FROM accounts a JOIN caller ON a.organization_id = caller.organization_id
    WHERE a.id = %(account_id)s::bigint
),
verdict AS (
    SELECT CASE
        WHEN NOT (SELECT ok FROM permitted) THEN 403
        WHEN %(account_id)s::bigint IS NOT NULL AND NOT EXISTS (SELECT 1 FROM owned) THEN 404
    END AS status
),
ledger AS (
    INSERT INTO usage_ledger
        (organization_id, api_key_id, account_id, method, route, status, credits, debited,
         created_at)
    SELECT ch.id, caller.key_id, %(account_id)s::bigint, %(method)s, %(route)s,
           verdict.status, 1, ch.last_charge_debited, greatest(now(), ch.minute_window)
    FROM charged ch, caller, verdict
    RETURNING id
)
SELECT caller.key_id,
       caller.key_hash,
       ch.id IS NOT NULL AS counted,
       (SELECT ok FROM permitted) AS permitted,
       verdict.status AS verdict,
       (SELECT upstream_token FROM owned) AS upstream_token,
       ch.last_charge_debited AS debited,
       (SELECT id FROM ledger) AS ledger_id,
       org.limit_minute,
       org.limit_day,
       coalesce(ch.minute_used,
                CASE WHEN org.minute_window >= clock.minute_start THEN org.minute_used END,
                0) AS minute_used,
       coalesce(ch.day_used,
                CASE WHEN org.day_window >= clock.day_start THEN org.day_used END,
                0) AS day_used,
       now() AS at
FROM clock
LEFT JOIN caller ON true
LEFT JOIN charged ch ON true
LEFT JOIN verdict ON true
LEFT JOIN organizations org ON org.id = caller.organization_id
"""


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

    def meta(self) -> Meta:
        return Meta(credits=Credits(used=self.credits_used), rate_limits=self.rate_limits())

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


async def run_gate_statement(
    conn: AsyncConnection,
    *,
    key_hash: bytes,
    permission: str,
    account_id: int | None,
    method: str,
    route: str,
) -> GateResult:
    params = {
        "key_hash": key_hash,
        "permission": permission,
        "account_id": account_id,
        "method": method,
        "route": route,
    }
    cursor = conn.cursor(row_factory=dict_row)
    await cursor.execute(GATE_SQL, params)
    row = await cursor.fetchone()
    assert row is not None  # the statement always returns exactly one row
    return GateResult(
        key_id=row["key_id"],
        key_hash=row["key_hash"],
        counted=bool(row["counted"]),
        permitted=bool(row["permitted"]),
        verdict=row["verdict"],
        upstream_token=row["upstream_token"],
        debited=bool(row["debited"]),
        ledger_id=row["ledger_id"],
        limit_minute=row["limit_minute"] or 0,
        limit_day=row["limit_day"] or 0,
        minute_used=row["minute_used"],
        day_used=row["day_used"],
        at=row["at"],
    )


async def meter(pool: AsyncConnectionPool, **request: object) -> GateResult:
    """Run the gate statement on a pooled connection, as one autocommitted transaction.

    Autocommit for this statement only (psycopg would otherwise send BEGIN and COMMIT as
    two more round trips); the connection goes back to the pool as it came.
    """
    async with pool.connection() as conn:
        await conn.set_autocommit(True)
        try:
            return await run_gate_statement(conn, **request)  # type: ignore[arg-type]
        finally:
            await conn.set_autocommit(False)


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
