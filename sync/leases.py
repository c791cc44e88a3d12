"""The task table and its leases: how any number of workers share the sync work safely.

One ``sync_tasks`` row per (account, resource) is both the queue entry and the lock:

- ``enqueue``: the scheduler's tick inserts a row for every active account and registered
  resource that lacks one (``ON CONFLICT DO NOTHING``: ticks of many workers are harmless).
- ``claim``: a worker takes one due row whose lease is free or expired, with
  ``FOR UPDATE SKIP LOCKED`` (claimers never wait for each other or pick the same row),
  and stamps it with its name, a fresh lease token and an expiry.
- ``heartbeat``: while the task runs, the holder pushes the expiry forward. A worker that
  dies stops doing so and its lease expires; the next claim takes the task over.
- ``fence``: every page's transaction re-checks the token (and extends the lease) in the
  same transaction as its rows, so a worker that lost its lease (paused past expiry,
  network partition) can never commit a page after another worker took over.
- ``release``: the holder frees the row and sets when it is due next.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from psycopg import AsyncConnection, Connection
from psycopg.rows import class_row

from app.db.rows import one
from sync.pairs import among_pairs, pair_keys, pairs_params


class LeaseLost(Exception):
    """The task's lease expired and was taken over (or released) while we worked on it."""


@dataclass(frozen=True, slots=True)
class Lease:
    account_id: int
    resource: str
    token: uuid.UUID
    owner: str
    previous_owner: str | None  # set when this claim took over an expired lease
    upstream_token: str
    incremental_due: bool
    backfill_since: datetime | None
    reconcile_since: datetime | None
    failures: int


# A new task may start with a backfill of the account's whole history ('epoch' = from the
# beginning), so the store can answer any window of a newly connected account.
_ENQUEUE = """
INSERT INTO sync_tasks (account_id, resource, backfill_since)
SELECT a.id, r.name, CASE WHEN %(backfill)s THEN 'epoch'::timestamptz END
FROM accounts a CROSS JOIN unnest(%(resources)s::text[]) AS r(name)
WHERE a.status = 'active'
ON CONFLICT (account_id, resource) DO NOTHING
"""

# The claimable rows: due (or with backfill/reconcile work waiting), lease free or
# expired, account active. ``keys`` restricts to chosen (account, resource) pairs.
_CLAIM = f"""
WITH candidate AS (
    SELECT t.account_id, t.resource, t.lease_owner AS previous_owner,
           t.lease_expires_at IS NOT NULL AS taken_over
    FROM sync_tasks t
    JOIN accounts a ON a.id = t.account_id AND a.status = 'active'
    WHERE (t.lease_expires_at IS NULL OR t.lease_expires_at < now())
      AND (t.due_at <= now()
           OR ((t.backfill_since IS NOT NULL OR t.reconcile_since IS NOT NULL)
               AND t.failures = 0))
      AND (%(keys)s::text[] IS NULL OR ({among_pairs("t.")}))
      AND (%(resources)s::text[] IS NULL OR t.resource = ANY(%(resources)s::text[]))
    ORDER BY t.due_at
    LIMIT 1
    FOR UPDATE OF t SKIP LOCKED
)
UPDATE sync_tasks t
SET lease_owner = %(owner)s,
    lease_token = gen_random_uuid(),
    lease_expires_at = now() + make_interval(secs => %(lease)s),
    heartbeat_at = now(),
    updated_at = now()
FROM candidate c, accounts a
WHERE t.account_id = c.account_id AND t.resource = c.resource AND a.id = t.account_id
RETURNING t.account_id, t.resource, t.lease_token AS token, t.lease_owner AS owner,
          CASE WHEN c.taken_over THEN c.previous_owner END AS previous_owner,
          a.upstream_token, t.next_incremental_at <= now() AS incremental_due,
          t.backfill_since, t.reconcile_since, t.failures
"""

# Runs of a taken-over task that its dead holder left "running".
_ABANDON_RUNS = """
UPDATE sync_runs SET status = 'abandoned', finished_at = now(),
       error = coalesce(error, 'lease expired: worker stopped heartbeating')
WHERE account_id = %s AND resource = %s AND status = 'running' AND worker IS DISTINCT FROM %s
"""

_HEARTBEAT = """
UPDATE sync_tasks
SET lease_expires_at = now() + make_interval(secs => %(lease)s), heartbeat_at = now()
WHERE lease_token = ANY(%(tokens)s::uuid[])
RETURNING lease_token
"""

FENCE_SQL = """
UPDATE sync_tasks
SET lease_expires_at = greatest(lease_expires_at, now() + make_interval(secs => %(lease)s)),
    heartbeat_at = now()
WHERE account_id = %(account_id)s AND resource = %(resource)s AND lease_token = %(token)s
RETURNING 1
"""

_RELEASE = """
UPDATE sync_tasks
SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL,
    -- After a success the task is due at the earlier of the given time and its next
    -- incremental sync; after a failure, at the given (backoff) time.
    due_at = CASE WHEN %(failed)s THEN %(due_at)s::timestamptz
                  ELSE least(%(due_at)s::timestamptz,
                             coalesce(%(next_incremental_at)s::timestamptz, next_incremental_at))
             END,
    next_incremental_at = coalesce(%(next_incremental_at)s::timestamptz, next_incremental_at),
    backfill_since = CASE WHEN %(backfill_done)s::timestamptz IS NOT NULL
                           AND backfill_since >= %(backfill_done)s::timestamptz
                          THEN NULL ELSE backfill_since END,
    reconcile_since = CASE WHEN %(reconcile_done)s THEN NULL ELSE reconcile_since END,
    failures = CASE WHEN %(failed)s THEN failures + 1 ELSE 0 END,
    updated_at = now()
WHERE account_id = %(account_id)s AND resource = %(resource)s AND lease_token = %(token)s
"""

_REQUEST = """
INSERT INTO sync_tasks (account_id, resource, {column}, due_at)
VALUES (%(account_id)s, %(resource)s, %(since)s, now())
ON CONFLICT (account_id, resource) DO UPDATE
SET {column} = least(coalesce(sync_tasks.{column}, excluded.{column}), excluded.{column}),
    failures = 0, due_at = least(sync_tasks.due_at, now()), updated_at = now()
"""


async def enqueue(
    conn: AsyncConnection, resources: Iterable[str], *, initial_backfill: bool = False
) -> int:
    """Make sure every active account has a task per resource; returns rows added.

    ``initial_backfill``: new tasks start with a backfill of the whole history."""
    cur = await conn.execute(
        _ENQUEUE, {"resources": list(resources), "backfill": initial_backfill}
    )
    return cur.rowcount


async def claim(
    conn: AsyncConnection,
    owner: str,
    lease_seconds: float,
    *,
    only: Iterable[tuple[int, str]] | None = None,
    resources: Iterable[str] | None = None,
) -> Lease | None:
    """Claim one due task, or None when nothing is claimable now."""
    params = {
        "owner": owner,
        "lease": lease_seconds,
        **pairs_params(None if only is None else pair_keys(only)),
        "resources": None if resources is None else list(resources),
    }
    async with conn.transaction():
        async with conn.cursor(row_factory=class_row(Lease)) as cur:
            await cur.execute(_CLAIM, params)
            lease = await cur.fetchone()
        if lease is None:
            return None
        if lease.previous_owner is not None:
            await conn.execute(_ABANDON_RUNS, (lease.account_id, lease.resource, owner))
    return lease


async def heartbeat(conn: AsyncConnection, tokens: Iterable[uuid.UUID], lease_seconds: float) -> set:
    """Extend the given leases; returns the tokens still held (the others were lost)."""
    tokens = list(tokens)
    if not tokens:
        return set()
    cur = await conn.execute(_HEARTBEAT, {"tokens": tokens, "lease": lease_seconds})
    return {row[0] for row in await cur.fetchall()}


async def release(
    conn: AsyncConnection,
    lease: Lease,
    *,
    due_at: datetime,
    next_incremental_at: datetime | None = None,
    backfill_done: datetime | None = None,
    reconcile_done: bool = False,
    failed: bool = False,
) -> bool:
    """Free the task and schedule it; False if the lease was no longer ours."""
    cur = await conn.execute(
        _RELEASE,
        {
            "account_id": lease.account_id,
            "resource": lease.resource,
            "token": lease.token,
            "due_at": due_at,
            "next_incremental_at": next_incremental_at,
            "backfill_done": backfill_done,
            "reconcile_done": reconcile_done,
            "failed": failed,
        },
    )
    return cur.rowcount == 1


async def request(
    conn: AsyncConnection, account_id: int, resource: str, *, kind: str, since: datetime
) -> None:
    """Ask for a backfill (``kind="backfill"``) or a reconciliation (``"reconcile"``) of one
    (account, resource) back to ``since``; an earlier pending request wins."""
    column = {"backfill": "backfill_since", "reconcile": "reconcile_since"}[kind]
    await conn.execute(
        _REQUEST.format(column=column),
        {"account_id": account_id, "resource": resource, "since": since},
    )


async def nudge(conn: AsyncConnection, account_id: int, resources: list[str]) -> None:
    """Make the account's tasks of ``resources`` due now (they follow a refresh of theirs)."""
    if resources:
        await conn.execute(
            """
            UPDATE sync_tasks SET due_at = now(), next_incremental_at = now()
            WHERE account_id = %s AND resource = ANY(%s)
            """,
            (account_id, resources),
        )


def active_account_ids(conn: Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT id FROM accounts WHERE status = 'active' ORDER BY id")]


async def requests_pending(conn: AsyncConnection, keys: list[str], kind: str) -> int:
    """Tasks of active accounts among ``keys`` (``"account:resource"``) whose ``kind``
    request is not done yet (or that failed and wait for a retry). An account whose
    credential the upstream rejected meanwhile is not waited for: nothing claims its tasks."""
    column = {"backfill": "backfill_since", "reconcile": "reconcile_since"}[kind]
    cur = await conn.execute(
        f"""
        SELECT count(*) FROM sync_tasks t JOIN accounts a ON a.id = t.account_id
        WHERE a.status = 'active' AND {among_pairs("t.")}
          AND (t.{column} IS NOT NULL OR t.failures > 0)
        """,
        pairs_params(keys),
    )
    (pending,) = one(await cur.fetchone())
    return pending


async def due_or_running(conn: AsyncConnection, keys: list[str] | None) -> int:
    """Tasks of active accounts (among ``keys``, if given) that are due or leased."""
    cur = await conn.execute(
        f"""
        SELECT count(*) FROM sync_tasks t JOIN accounts a ON a.id = t.account_id
        WHERE a.status = 'active'
          AND (%(keys)s::text[] IS NULL OR ({among_pairs("t.")}))
          AND (t.due_at <= now() OR t.lease_expires_at > now())
        """,
        pairs_params(keys),
    )
    (due,) = one(await cur.fetchone())
    return due
