"""The schedules' SQL: ``schedules`` (one row per schedule, also the lock of its runs) and
``schedule_runs`` (one row per attempt at one due time).

How any number of workers run each due time once:

- ``claim``: a worker takes one schedule whose due time (or retry time) has come and whose
  lease is free or expired, with ``FOR UPDATE SKIP LOCKED``; in the same transaction it moves
  ``next_run_at`` to the first due time after *now* (missed times are not replayed), records
  the due time it runs as ``pending_due_at``, takes the lease and inserts the run row. Another
  worker either skips the locked row or, after the commit, sees the next due time.
- ``heartbeat`` extends the lease while the run works; a worker that dies stops doing so, and
  once the lease expires the next claim retries the same due time (``attempt`` + 1) and marks
  the dead holder's run ``abandoned``.
- ``finish``: success clears ``pending_due_at``; failure counts it and sets ``retry_at`` (the
  sync's backoff). A retry that is still failing when the next due time comes gives way to it.

Due times are on the sync's clock (``RELAY_SYNC_CLOCK``: the machine's, or the sandbox's in
tests and the demo); leases on the database's, like ``sync_tasks``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import dict_row

from app.db.rows import one
from sync.pairs import among_pairs, pairs_params
from sync.schedules.timing import next_due
from sync.state import jsonb


@dataclass(frozen=True, slots=True)
class NewSchedule:
    organization_id: int
    account_id: int | None
    resource: str | None
    action: str
    cron: str
    timezone: str
    since: str | None
    export_format: str | None
    export_dir: str | None


@dataclass(frozen=True, slots=True)
class ClaimedRun:
    """A run a worker claimed: its schedule's settings, the due time and the attempt."""

    run_id: int
    schedule_id: int
    organization_id: int
    account_id: int | None
    resource: str | None
    action: str
    since: str | None
    export_format: str | None
    export_dir: str | None
    due_at: datetime
    attempt: int
    failures: int
    started_at: datetime  # the database's clock, as sync_runs.started_at


# --- the CLI's side ---------------------------------------------------------------------


def add(conn: psycopg.Connection, new: NewSchedule, now: datetime) -> int:
    row = one(conn.execute(
        """
        INSERT INTO schedules (organization_id, account_id, resource, action, cron, timezone,
                               since, export_format, export_dir, next_run_at)
        VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id
        """,
        (new.organization_id, new.account_id, new.resource, new.action, new.cron, new.timezone,
         new.since, new.export_format, new.export_dir, next_due(new.cron, new.timezone, now)),
    ).fetchone())
    return row[0]


def account_of_org(conn: psycopg.Connection, account_id: int, organization_id: int) -> bool:
    row = conn.execute(
        "SELECT 1 FROM accounts WHERE id = %s AND organization_id = %s", (account_id, organization_id)
    ).fetchone()
    return row is not None


_LIST = """
SELECT s.id, o.name AS organization, s.account_id, s.resource, s.action, s.cron, s.timezone,
       s.since, s.export_format, s.export_dir, s.paused, s.next_run_at, s.pending_due_at,
       s.retry_at, s.failures, s.lease_owner,
       r.id AS run_id, r.due_at AS run_due_at, r.attempt AS run_attempt, r.status AS run_status,
       r.started_at AS run_started_at, r.finished_at AS run_finished_at,
       r.rows_read AS run_rows_read, r.rows_changed AS run_rows_changed, r.error AS run_error,
       r.details AS run_details
FROM schedules s
JOIN organizations o ON o.id = s.organization_id
LEFT JOIN LATERAL (SELECT * FROM schedule_runs WHERE schedule_id = s.id ORDER BY id DESC LIMIT 1) r ON true
ORDER BY s.id
"""


def list_rows(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Every schedule with its latest run (``relay schedules list``, ``relay sync status``)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(_LIST).fetchall()


def set_paused(conn: psycopg.Connection, schedule_id: int, paused: bool, now: datetime) -> bool:
    """Pause or resume; a resumed schedule is next due at its first time after now (the
    times it missed while paused are not run, nor a retry left pending)."""
    row = conn.execute("SELECT cron, timezone FROM schedules WHERE id = %s", (schedule_id,)).fetchone()
    if row is None:
        return False
    conn.execute(
        """
        UPDATE schedules SET paused = %s,
               next_run_at = CASE WHEN %s THEN next_run_at ELSE %s END,
               pending_due_at = CASE WHEN %s THEN pending_due_at END,
               retry_at = CASE WHEN %s THEN retry_at END,
               failures = CASE WHEN %s THEN failures ELSE 0 END
        WHERE id = %s
        """,
        (paused, paused, next_due(row[0], row[1], now), paused, paused, paused, schedule_id),
    )
    return True


def remove(conn: psycopg.Connection, schedule_id: int) -> bool:
    return conn.execute("DELETE FROM schedules WHERE id = %s", (schedule_id,)).rowcount == 1


# --- the workers' side ------------------------------------------------------------------

_CANDIDATE = """
SELECT id, organization_id, account_id, resource, action, cron, timezone, since,
       export_format, export_dir, next_run_at, pending_due_at, failures,
       lease_expires_at IS NOT NULL AS taken_over
FROM schedules
WHERE NOT paused
  AND (lease_expires_at IS NULL OR lease_expires_at < now())
  AND (next_run_at <= %(now)s OR retry_at <= %(now)s)
ORDER BY least(next_run_at, retry_at)
LIMIT 1
FOR UPDATE SKIP LOCKED
"""

_TAKE = """
UPDATE schedules
SET next_run_at = %(next_run_at)s, pending_due_at = %(due_at)s,
    -- Retried at once should this holder die (the lease keeps others out until then).
    retry_at = %(now)s, failures = %(failures)s,
    lease_owner = %(owner)s, lease_expires_at = now() + make_interval(secs => %(lease)s)
WHERE id = %(id)s
"""

_START_RUN = """
INSERT INTO schedule_runs (schedule_id, due_at, attempt, worker)
SELECT %(id)s, %(due_at)s, coalesce(max(attempt), 0) + 1, %(owner)s
FROM schedule_runs WHERE schedule_id = %(id)s AND due_at = %(due_at)s
RETURNING id, attempt, started_at
"""

_ABANDON_RUNS = """
UPDATE schedule_runs SET status = 'abandoned', finished_at = now(),
       error = coalesce(error, 'lease expired: worker stopped heartbeating')
WHERE schedule_id = %s AND status = 'running'
"""


async def claim(conn: AsyncConnection, owner: str, now: datetime, lease_seconds: float) -> ClaimedRun | None:
    """Claim one due schedule and start its run, or None when none is due."""
    async with conn.transaction():
        async with conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(_CANDIDATE, {"now": now})
            s = await cur.fetchone()
        if s is None:
            return None
        if s["next_run_at"] <= now:
            # A new due time; one still being retried gives way to it (the new run covers
            # it: a reconcile re-reads it, an export's window starts at the last success).
            due_at, failures = s["next_run_at"], 0
            next_run_at = next_due(s["cron"], s["timezone"], now)
        else:
            due_at, failures, next_run_at = s["pending_due_at"], s["failures"], s["next_run_at"]
        if s["taken_over"]:
            await conn.execute(_ABANDON_RUNS, (s["id"],))
        params = {"id": s["id"], "due_at": due_at, "next_run_at": next_run_at, "now": now,
                  "failures": failures, "owner": owner, "lease": lease_seconds}
        await conn.execute(_TAKE, params)
        started = await conn.execute(_START_RUN, params)
        run_id, attempt, started_at = one(await started.fetchone())
    return ClaimedRun(
        run_id=run_id, schedule_id=s["id"], organization_id=s["organization_id"],
        account_id=s["account_id"], resource=s["resource"], action=s["action"], since=s["since"],
        export_format=s["export_format"], export_dir=s["export_dir"], due_at=due_at,
        attempt=attempt, failures=failures, started_at=started_at,
    )


async def heartbeat(conn: AsyncConnection, run: ClaimedRun, owner: str, lease_seconds: float) -> bool:
    """Extend the run's lease; False when it was lost (taken over, or the schedule removed)."""
    cur = await conn.execute(
        """
        UPDATE schedules SET lease_expires_at = now() + make_interval(secs => %s)
        WHERE id = %s AND lease_owner = %s AND pending_due_at = %s
        """,
        (lease_seconds, run.schedule_id, owner, run.due_at),
    )
    return cur.rowcount == 1


async def finish(
    conn: AsyncConnection, run: ClaimedRun, owner: str, *, status: str, rows_read: int = 0,
    rows_changed: int = 0, error: str | None = None, details: dict | None = None,
    retry_at: datetime | None = None,
) -> None:
    """Close the run and free the schedule: done (``succeeded``), or due again at ``retry_at``
    (``failed``: one more failure counted; ``abandoned``: the worker is stopping)."""
    async with conn.transaction():
        await conn.execute(
            """
            UPDATE schedule_runs SET status = %s, finished_at = now(), rows_read = %s,
                   rows_changed = %s, error = %s, details = %s
            WHERE id = %s AND status = 'running'
            """,
            (status, rows_read, rows_changed, error, jsonb(details or {}), run.run_id),
        )
        await conn.execute(
            """
            UPDATE schedules
            SET lease_owner = NULL, lease_expires_at = NULL,
                pending_due_at = CASE WHEN %(done)s THEN NULL ELSE pending_due_at END,
                retry_at = CASE WHEN %(done)s THEN NULL ELSE %(retry_at)s::timestamptz END,
                failures = CASE WHEN %(done)s THEN 0 WHEN %(failed)s THEN failures + 1 ELSE failures END
            WHERE id = %(id)s AND lease_owner = %(owner)s AND pending_due_at = %(due_at)s
            """,
            {"done": status == "succeeded", "failed": status == "failed", "retry_at": retry_at,
             "id": run.schedule_id, "owner": owner, "due_at": run.due_at},
        )


async def active_accounts(conn: AsyncConnection, run: ClaimedRun) -> list[int]:
    """The run's accounts: the schedule's one, or every active account of its organization."""
    cur = await conn.execute(
        """
        SELECT id FROM accounts
        WHERE organization_id = %s AND status = 'active' AND (%s::bigint IS NULL OR id = %s)
        ORDER BY id
        """,
        (run.organization_id, run.account_id, run.account_id),
    )
    return [account_id for (account_id,) in await cur.fetchall()]


async def last_export_ends(conn: AsyncConnection, schedule_id: int) -> dict[str, str]:
    """``"account:resource"`` -> the window end of its file in the schedule's last
    successful run that wrote one (where the next window starts)."""
    cur = await conn.execute(
        """
        SELECT DISTINCT ON (f->>'account_id', f->>'resource')
               (f->>'account_id') || ':' || (f->>'resource'), f->>'end'
        FROM schedule_runs r, jsonb_array_elements(r.details->'files') f
        WHERE r.schedule_id = %s AND r.status = 'succeeded'
        ORDER BY f->>'account_id', f->>'resource', r.id DESC
        """,
        (schedule_id,),
    )
    return dict(await cur.fetchall())


async def requests_outcome(conn: AsyncConnection, keys: list[str], kind: str) -> tuple[int, str | None]:
    """Of the tasks ``keys`` (``"account:resource"``): how many of active accounts still
    have the ``kind`` request pending, and the first error of one that failed on it or whose
    account stopped syncing meanwhile (its credential rejected by another task: the request
    would wait for a reconnect)."""
    column = {"backfill": "backfill_since", "reconcile": "reconcile_since"}[kind]
    # The errors are read apart, as their own subqueries: Citus refuses a LATERAL outer join
    # from the coordinator's tables (tasks, accounts) to sync_state (docs/scaling.md).
    cur = await conn.execute(
        f"""
        WITH targets AS (
            SELECT t.account_id, t.resource, t.failures, a.status
            FROM sync_tasks t JOIN accounts a ON a.id = t.account_id
            WHERE {among_pairs("t.")} AND t.{column} IS NOT NULL
        ),
        errors AS (
            SELECT account_id, resource, last_error, last_error_at FROM sync_state
            WHERE account_id = ANY(%(accounts)s::bigint[]) AND last_error IS NOT NULL
        ),
        stopped AS (  -- an account's latest error (what stopped it, when it is not active)
            SELECT DISTINCT ON (account_id) account_id, last_error AS error FROM errors
            ORDER BY account_id, last_error_at DESC
        )
        SELECT count(*) FILTER (WHERE t.status = 'active'),
               min(t.account_id || ':' || t.resource || ': ' || coalesce(
                       e.last_error, 'account ' || t.status || coalesce(': ' || stopped.error, ''), 'failed'))
                   FILTER (WHERE t.failures > 0 OR t.status <> 'active')
        FROM targets t
        LEFT JOIN errors e USING (account_id, resource)
        LEFT JOIN stopped ON stopped.account_id = t.account_id AND t.status <> 'active'
        """,
        pairs_params(keys),
    )
    pending, error = one(await cur.fetchone())
    return pending, error


async def sync_rows(conn: AsyncConnection, keys: list[str], kind: str, since: datetime) -> tuple[int, int]:
    """Rows read and rows changed by the ``kind`` passes of ``keys`` that started since ``since``."""
    cur = await conn.execute(
        f"""
        SELECT coalesce(sum(rows_inserted + rows_updated + rows_unchanged), 0),
               coalesce(sum(rows_inserted + rows_updated), 0)
        FROM sync_runs
        WHERE kind = %(kind)s AND started_at >= %(since)s AND {among_pairs()}
        """,
        {"kind": kind, "since": since, **pairs_params(keys)},
    )
    read, changed = one(await cur.fetchone())
    return int(read), int(changed)


async def gauges(conn: AsyncConnection, now: datetime) -> list[dict[str, Any]]:
    """Per action: schedules due and not held, schedules whose due time is failing."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            """
            SELECT action,
                   count(*) FILTER (WHERE NOT paused AND least(next_run_at, retry_at) <= %s
                                      AND (lease_expires_at IS NULL OR lease_expires_at < now())) AS due,
                   count(*) FILTER (WHERE failures > 0) AS failing
            FROM schedules GROUP BY action
            """,
            (now,),
        )
        return await cur.fetchall()
