"""The sync's bookkeeping in PostgreSQL: ``sync_state`` (cursor, coverage, last success or
error per account and resource) and ``sync_runs`` (one row per pass of one kind of work).

The per-page update of both happens in the page write's closing statement (:data:`BOOKKEEPING`),
so a page's rows, its cursor, the coverage and the run's counters commit together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import msgspec
from psycopg import AsyncConnection, Connection
from psycopg.rows import class_row, dict_row
from psycopg.types.json import Jsonb

from app.db.rows import one
from sync.cursor_state import CursorState, decode_cursor, encode_cursor
from sync.leases import FENCE_SQL
from sync.pairs import among_pairs, pairs_params


def jsonb(value: Any) -> Jsonb:
    """A JSON parameter encoded by msgspec (run details)."""
    return Jsonb(value, dumps=lambda v: msgspec.json.encode(v).decode())


def cursor_json(value: CursorState[Any]) -> Jsonb:
    """The ``sync_state.cursor`` parameter: the state encoded once, where it is written."""
    return Jsonb(value, dumps=lambda v: encode_cursor(v).decode())


# The page's bookkeeping, in its write's statements (``app.store.mapping.page_write``):
# the lease fence with the write's lock (extends the lease; no row means the lease is lost
# and the engine rolls the page back), and in the closing statement the partition's new
# cursor and the resource's coverage, and the run's counters (``inserted`` and
# ``updated`` are the upsert's).
FENCE = f"WITH fence AS ({FENCE_SQL}) "
#: What :data:`FENCE` adds to the lock's answer: 1 when the fence held.
FENCE_COLUMNS = ", (SELECT count(*) FROM fence)"
BOOKKEEPING = """
, state AS (
    UPDATE sync_state SET cursor = %(cursor)s, coverage_start = %(coverage_start)s,
           coverage_end = %(coverage_end)s, last_run_id = %(run_id)s, updated_at = now()
    WHERE account_id = %(account_id)s AND resource = %(resource)s
)
, run AS (
    UPDATE sync_runs SET pages = pages + 1, rows_inserted = rows_inserted + %(inserted)s,
           rows_updated = rows_updated + %(updated)s,
           rows_unchanged = rows_unchanged + %(staged)s - %(inserted)s - %(updated)s
    WHERE account_id = %(account_id)s AND id = %(run_id)s
)"""


# A head check that saw nothing new: the cursor with its partitions' coverage moved to the
# check's "now", and the pair's last success, only while the lease is ours (the fence).
_ADVANCE = f"""
WITH fence AS ({FENCE_SQL})
UPDATE sync_state SET cursor = %(cursor)s, coverage_start = %(coverage_start)s,
       coverage_end = %(coverage_end)s, last_success_at = now(), last_error = NULL,
       updated_at = now()
WHERE account_id = %(account_id)s AND resource = %(resource)s AND EXISTS (SELECT FROM fence)
RETURNING 1
"""


async def advance_coverage(
    conn: AsyncConnection, *, account_id: int, resource: str, token: Any, lease: float,
    cursor: CursorState[Any], coverage_start: datetime | None, coverage_end: datetime | None,
) -> bool:
    """Store the cursor and coverage a head check moved forward; False: the lease is lost."""
    cur = await conn.execute(_ADVANCE, {
        "account_id": account_id, "resource": resource, "token": token, "lease": lease,
        "cursor": cursor_json(cursor), "coverage_start": coverage_start, "coverage_end": coverage_end,
    })
    return await cur.fetchone() is not None


async def load_cursor(
    conn: AsyncConnection, account_id: int, resource: str, position_type: type
) -> CursorState[Any]:
    """The stored cursor of the pair (its ``sync_state`` row is created if missing), decoded
    once from its JSON text with the resource's position Struct."""
    await conn.execute(
        "INSERT INTO sync_state (account_id, resource) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (account_id, resource),
    )
    cur = await conn.execute(
        "SELECT cursor::text FROM sync_state WHERE account_id = %s AND resource = %s", (account_id, resource)
    )
    row = await cur.fetchone()
    return decode_cursor(row[0] if row else None, position_type)


async def synced_count(conn: AsyncConnection, account_id: int, resources: Iterable[str]) -> int:
    """How many of ``resources`` have completed a sync for the account."""
    cur = await conn.execute(
        """
        SELECT count(*) FROM sync_state
        WHERE account_id = %s AND resource = ANY(%s) AND last_success_at IS NOT NULL
        """,
        (account_id, list(resources)),
    )
    (synced,) = one(await cur.fetchone())
    return synced


async def stored_link_ids(conn: AsyncConnection, account_id: int) -> list[int]:
    """The tracking links the store holds for the account (their stats are partitions)."""
    cur = await conn.execute(
        "SELECT id FROM tracking_links WHERE account_id = %s ORDER BY id", (account_id,)
    )
    return [link_id for (link_id,) in await cur.fetchall()]


async def start_run(
    conn: AsyncConnection, account_id: int, resource: str, kind: str, worker: str, details: dict
) -> int:
    cur = await conn.execute(
        """
        INSERT INTO sync_runs (account_id, resource, kind, worker, details)
        VALUES (%s, %s, %s, %s, %s) RETURNING id
        """,
        (account_id, resource, kind, worker, jsonb(details)),
    )
    (run_id,) = one(await cur.fetchone())
    return run_id


async def finish_run(
    conn: AsyncConnection,
    run_id: int,
    account_id: int,
    resource: str,
    *,
    status: str,
    retries: int,
    error: str | None,
    complete: bool,
) -> None:
    """Close the run; a success or a failure is also the pair's last success or error."""
    async with conn.transaction():
        await conn.execute(
            """
            UPDATE sync_runs SET status = %s, finished_at = now(), retries = %s, error = %s,
                   details = details || %s
            WHERE account_id = %s AND id = %s
            """,
            (status, retries, error, jsonb({"complete": complete}), account_id, run_id),
        )
        if status == "succeeded":
            await conn.execute(
                """
                UPDATE sync_state SET last_success_at = now(), last_error = NULL
                WHERE account_id = %s AND resource = %s
                """,
                (account_id, resource),
            )
        elif error is not None and status == "failed":
            await record_error(conn, account_id, resource, error)


async def record_error(
    conn: AsyncConnection, account_id: int, resource: str, error: str, *, credentials_rejected: bool = False
) -> None:
    """The pair's last error (what ``relay sync status`` shows), its row created if missing.

    ``credentials_rejected``: the upstream refused the account's credential, so the account
    is ``credentials_rejected`` from now on, in the same transaction: no task of it is
    claimed again until ``relay accounts reconnect``, and its status turning writes the one
    ``account.credentials_rejected`` event of this rejection (migration 0019's trigger, which
    reads this error).
    """
    async with conn.transaction():
        await conn.execute(
            """
            INSERT INTO sync_state (account_id, resource, last_error, last_error_at) VALUES (%s, %s, %s, now())
            ON CONFLICT (account_id, resource) DO UPDATE SET last_error = excluded.last_error,
                                                             last_error_at = excluded.last_error_at
            """,
            (account_id, resource, error),
        )
        if credentials_rejected:
            await conn.execute(
                "UPDATE accounts SET status = 'credentials_rejected', updated_at = now() "
                "WHERE id = %s AND status = 'active'",
                (account_id,),
            )


@dataclass(frozen=True, slots=True)
class CoverageRow:
    account_id: int
    resource: str
    coverage_start: datetime | None
    coverage_end: datetime | None


async def coverage_of(conn: AsyncConnection, keys: list[str]) -> list[CoverageRow]:
    """Coverage of the ``"account:resource"`` pairs in ``keys`` (the backfill progress bar)."""
    async with conn.cursor(row_factory=class_row(CoverageRow)) as cur:
        await cur.execute(
            f"SELECT account_id, resource, coverage_start, coverage_end FROM sync_state WHERE {among_pairs()}",
            pairs_params(keys),
        )
        return await cur.fetchall()


#: Every pair's task and state, with its account's status and its last run. No correlated
#: subquery: Citus refuses one over a join like this (docs/scaling.md); the last run per pair
#: comes from one ``DISTINCT ON`` over the runs instead.
_STATUS_SQL = """
SELECT coalesce(t.account_id, s.account_id) AS account_id,
       a.status AS account_status,
       coalesce(t.resource, s.resource) AS resource,
       s.coverage_start, s.coverage_end, s.last_success_at, s.last_error, s.last_error_at,
       t.lease_owner, t.lease_expires_at, t.due_at, t.backfill_since, t.failures,
       r.status AS last_run
FROM sync_tasks t
FULL JOIN sync_state s ON s.account_id = t.account_id AND s.resource = t.resource
LEFT JOIN accounts a ON a.id = coalesce(t.account_id, s.account_id)
LEFT JOIN (
    SELECT DISTINCT ON (account_id, resource) account_id, resource, status FROM sync_runs
    ORDER BY account_id, resource, id DESC
) r ON r.account_id = coalesce(t.account_id, s.account_id) AND r.resource = coalesce(t.resource, s.resource)
ORDER BY account_id, resource
"""


def status_rows(conn: Connection) -> list[dict[str, Any]]:
    """Task and state of every (account, resource), by column name (``relay sync status``)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(_STATUS_SQL).fetchall()
