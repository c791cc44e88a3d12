"""The events feed's SQL: an organization's events after a cursor, in (tx, id) order.

Only events of transactions older than the oldest still running are handed out
(``pg_snapshot_xmin``): an event whose transaction is still open may commit after later
ids are visible, and with a plain id cursor a consumer would step over it. Every event not
yet visible belongs to a transaction at or above that horizon, so it sorts after any
cursor handed out: a polling consumer neither misses nor repeats an event.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from app.events.types import Cursor

#: The horizon: transaction ids below it are finished (committed or rolled back).
HORIZON_SQL = "(pg_snapshot_xmin(pg_current_snapshot())::text)::bigint"

_FEED = f"""
SELECT e.id, e.tx, e.event_id, e.type, e.organization_id, e.account_id, e.occurred_at, e.payload
FROM events e
WHERE e.organization_id = (SELECT organization_id FROM api_keys WHERE id = %(key_id)s)
  AND (e.tx, e.id) > (%(tx)s::bigint, %(id)s::bigint)
  AND e.tx < {HORIZON_SQL}
  AND (%(types)s::text[] IS NULL OR e.type = ANY(%(types)s::text[]))
ORDER BY e.tx, e.id
LIMIT %(limit)s
"""


async def feed(
    conn: AsyncConnection, key_id: int, after: Cursor, limit: int, types: list[str] | None
) -> list[dict[str, Any]]:
    """Up to ``limit`` events of the key's organization after ``after``, oldest first."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_FEED, {"key_id": key_id, "tx": after.tx, "id": after.id, "limit": limit, "types": types})
        return await cur.fetchall()
