"""The dispatchers' SQL: claim due endpoints (FOR UPDATE SKIP LOCKED plus a lock lease, so
any number of processes share the endpoints), read an endpoint's next events in feed order,
record each attempt, prune old events and delivery logs."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from app.db.rows import one
from app.events.feed import HORIZON_SQL

_PENDING = f"""
    FROM events v
    WHERE v.organization_id = w.organization_id
      AND (v.tx, v.id) > (w.cursor_tx, w.cursor_id)
      AND v.tx < {HORIZON_SQL}
      AND (w.event_types IS NULL OR v.type = ANY(w.event_types))
"""

# The due endpoints are picked once, in a materialized CTE: as ``WHERE id IN (subquery)`` the
# planner may run the subquery again (a rescan), each run locking other rows, so one claim
# could take more than ``limit`` endpoints -- and a second dispatcher none.
_CLAIM = f"""
WITH due AS MATERIALIZED (
    SELECT w.id FROM webhook_endpoints w
    WHERE w.status = 'active' AND w.next_attempt_at <= now()
      AND (w.locked_until IS NULL OR w.locked_until < now())
      AND EXISTS (SELECT 1 {_PENDING})
    ORDER BY w.next_attempt_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED)
UPDATE webhook_endpoints w
SET locked_until = now() + make_interval(secs => %(lease)s), locked_by = %(worker)s
FROM due
WHERE w.id = due.id
RETURNING w.id, w.url, w.secret, w.attempts, w.failing_since
"""

_NEXT = f"""
SELECT v.id, v.tx, v.event_id, v.type, v.organization_id, v.account_id, v.occurred_at, v.payload
{_PENDING.replace("FROM events v", "FROM events v, webhook_endpoints w", 1)}
  AND w.id = %(endpoint)s
ORDER BY v.tx, v.id
LIMIT %(limit)s
"""

#: One attempt in the endpoint's delivery log (``event`` NULL: a ``relay webhooks test`` event).
LOG_ATTEMPT = """
INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status_code, error, duration_ms, delivered)
VALUES (%(endpoint)s, %(event)s, %(attempt)s, %(status)s, %(error)s, %(ms)s, %(delivered)s)
"""

_DELIVERED = """
UPDATE webhook_endpoints
SET cursor_tx = %(tx)s, cursor_id = %(event)s, attempts = 0, failing_since = NULL,
    locked_until = now() + make_interval(secs => %(lease)s)
WHERE id = %(endpoint)s AND locked_by = %(worker)s
"""

_FAILED = """
UPDATE webhook_endpoints
SET attempts = attempts + 1, failing_since = coalesce(failing_since, now()),
    next_attempt_at = now() + make_interval(secs => %(delay)s), locked_until = NULL,
    status = CASE WHEN coalesce(failing_since, now()) < now() - make_interval(secs => %(give_up)s)
                  THEN 'disabled' ELSE status END,
    disabled_at = CASE WHEN coalesce(failing_since, now()) < now() - make_interval(secs => %(give_up)s)
                       THEN now() END,
    disabled_reason = CASE WHEN coalesce(failing_since, now()) < now() - make_interval(secs => %(give_up)s)
                           THEN 'failing since ' || coalesce(failing_since, now())::text || ': ' || %(error)s END
WHERE id = %(endpoint)s AND locked_by = %(worker)s
RETURNING status
"""

_RELEASE = "UPDATE webhook_endpoints SET locked_until = NULL WHERE id = %s AND locked_by = %s"


async def claim(conn: AsyncConnection, worker: str, limit: int, lease: float) -> list[dict[str, Any]]:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_CLAIM, {"worker": worker, "limit": limit, "lease": lease})
        return await cur.fetchall()


async def next_events(conn: AsyncConnection, endpoint_id: int, limit: int) -> list[dict[str, Any]]:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_NEXT, {"endpoint": endpoint_id, "limit": limit})
        return await cur.fetchall()


async def delivered(conn: AsyncConnection, endpoint: int, event: dict, worker: str, attempt: dict, lease: float) -> None:
    async with conn.transaction():
        await conn.execute(LOG_ATTEMPT, {**attempt, "endpoint": endpoint, "event": event["id"], "delivered": True})
        await conn.execute(_DELIVERED, {"tx": event["tx"], "event": event["id"], "endpoint": endpoint,
                                        "worker": worker, "lease": lease})


async def failed(
    conn: AsyncConnection, endpoint: int, event: dict, worker: str, attempt: dict, delay: float, give_up: float
) -> str | None:
    """Record a failed attempt and schedule the retry; the endpoint's status afterwards."""
    async with conn.transaction():
        await conn.execute(LOG_ATTEMPT, {**attempt, "endpoint": endpoint, "event": event["id"], "delivered": False})
        cur = await conn.execute(_FAILED, {"endpoint": endpoint, "worker": worker, "delay": delay,
                                           "give_up": give_up, "error": attempt["error"] or f"HTTP {attempt['status']}"})
        row = await cur.fetchone()
    return row[0] if row else None


async def release(conn: AsyncConnection, endpoint: int, worker: str) -> None:
    await conn.execute(_RELEASE, (endpoint, worker))


_PRUNE = """
WITH due AS (
    SELECT NOT EXISTS (SELECT 1 FROM maintenance_runs WHERE job = %(job)s
                       AND ran_at > now() - make_interval(secs => %(every)s)) AS due
), gone AS (
    DELETE FROM {table} WHERE {column} < now() - make_interval(days => %(days)s) AND (SELECT due FROM due)
    RETURNING 1
)
INSERT INTO maintenance_runs (job, worker, deleted, details)
SELECT %(job)s, %(worker)s, (SELECT count(*) FROM gone), jsonb_build_object('older_than_days', %(days)s)
WHERE (SELECT due FROM due)
RETURNING deleted
"""


async def prune(conn: AsyncConnection, job: str, table: str, column: str, days: int, worker: str, every: float) -> int | None:
    """Delete ``table`` rows older than ``days`` unless the job ran in the last ``every``
    seconds (one process at a time: an advisory lock); leaves a ``maintenance_runs`` row."""
    async with conn.transaction():
        cur = await conn.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s))", (job,))
        (locked,) = one(await cur.fetchone())
        if not locked:
            return None
        cur = await conn.execute(_PRUNE.format(table=table, column=column),
                                 {"job": job, "days": days, "worker": worker, "every": every})
        row = await cur.fetchone()
    return None if row is None else row[0]
