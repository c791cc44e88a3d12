"""SQL of the status page (``GET /status``): who may see it (and its count in the
organization's minute window), the sync of the organization's accounts, its schedules'
last runs, and its daily earnings.

Every query is scoped to the caller's organization: an admin key sees its own accounts only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from psycopg import AsyncConnection
from psycopg.rows import class_row

#: The key (not revoked, not past a rotation's expiry), and the view counted in its
#: organization's minute window while that has room: no credit, no day window (like the
#: gate statement, a window that has ended counts from 0, and windows never go back).
#: ``{key}`` picks the key: by its digest, or through a sign-in session that has not ended.
_VIEWER_SQL = """
WITH viewer AS (
    SELECT k.id AS key_id, k.organization_id, o.name AS organization, k.role
    FROM api_keys k JOIN organizations o ON o.id = k.organization_id
    WHERE {key} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
),
counted AS (
    UPDATE organizations o SET
        minute_window = greatest(o.minute_window, date_trunc('minute', now())),
        minute_used = 1 + CASE WHEN o.minute_window >= date_trunc('minute', now()) THEN o.minute_used ELSE 0 END
    FROM viewer v
    WHERE o.id = v.organization_id
      AND CASE WHEN o.minute_window >= date_trunc('minute', now()) THEN o.minute_used ELSE 0 END < o.limit_minute
    RETURNING o.id, greatest(now(), o.minute_window) AS at
)
SELECT v.key_id, v.organization_id, v.organization, v.role, c.id IS NOT NULL AS counted,
       extract(epoch FROM coalesce(c.at, now()))::float8 AS at
FROM viewer v LEFT JOIN counted c ON c.id = v.organization_id
"""
_KEY_VIEWER_SQL = _VIEWER_SQL.format(key="k.key_hash = %s")
_SESSION_VIEWER_SQL = _VIEWER_SQL.format(
    key="k.id = (SELECT api_key_id FROM status_sessions WHERE token_hash = %s AND expires_at > now())"
)

#: Each task of the organization's accounts with its pair's state and last run. The
#: per-account tables are read in subqueries over the organization's accounts, the last run
#: per pair by ``DISTINCT ON``: on Citus (docs/scaling.md) those run on the shards and the
#: coordinator joins their rows with its own tables; it refuses a ``LATERAL`` outer join from
#: its tables to them.
_SYNC_SQL = """
WITH org_accounts AS (SELECT id, label, status FROM accounts WHERE organization_id = %s),
state AS (
    SELECT account_id, resource, coverage_start, coverage_end, last_success_at, last_error, last_error_at
    FROM sync_state WHERE account_id IN (SELECT id FROM org_accounts)
),
last_run AS (
    SELECT DISTINCT ON (account_id, resource) account_id, resource, status, kind, started_at, finished_at
    FROM sync_runs WHERE account_id IN (SELECT id FROM org_accounts)
    ORDER BY account_id, resource, id DESC
)
SELECT a.id AS account_id, a.label, a.status AS account_status,
       coalesce(t.resource, s.resource) AS resource,
       s.coverage_start, s.coverage_end, s.last_success_at, s.last_error, s.last_error_at,
       t.backfill_since, t.due_at, t.failures,
       t.lease_expires_at > now() AS running,
       r.status AS last_run_status, r.kind AS last_run_kind,
       coalesce(r.finished_at, r.started_at) AS last_run_at,
       now() AS now
FROM org_accounts a
JOIN sync_tasks t ON t.account_id = a.id
LEFT JOIN state s ON s.account_id = t.account_id AND s.resource = t.resource
LEFT JOIN last_run r ON r.account_id = t.account_id AND r.resource = t.resource
ORDER BY a.id, resource
"""

#: Net earnings per UTC day of the last ``days`` days up to the latest synced earnings (zero on
#: days without any), all of the organization's accounts together: one range scan per
#: account over the whole span, summed per day (not one scan of every account per day).
_EARNINGS_SQL = """
WITH span AS (
    -- the chart ends at the latest synced earnings (the upstream's clock), else today
    SELECT last.day - make_interval(days => %(days)s - 1) AS first, last.day AS final
    FROM (
        SELECT date_trunc('day', coalesce(max(s.coverage_end), now()), 'UTC') AS day
        FROM sync_state s JOIN accounts a ON a.id = s.account_id
        WHERE a.organization_id = %(org)s AND s.resource = 'earnings'
    ) last
),
sums AS (
    SELECT date_trunc('day', e.created_at, 'UTC') AS day, sum(e.net) AS net
    FROM span, accounts a JOIN earnings e ON e.account_id = a.id
    WHERE a.organization_id = %(org)s
      AND e.created_at >= span.first AND e.created_at < span.final + interval '1 day'
    GROUP BY 1
)
SELECT d.day::date AS day, coalesce(s.net, 0) AS net
FROM span, generate_series(span.first, span.final, interval '1 day') AS d(day)
LEFT JOIN sums s ON s.day = d.day
ORDER BY d.day
"""


@dataclass(frozen=True, slots=True)
class Viewer:
    key_id: int
    organization_id: int
    organization: str
    role: str
    #: The view was counted in the organization's minute window (False: the window is full).
    counted: bool
    #: When it was counted (or refused): unix seconds, the database's clock.
    at: float


@dataclass(frozen=True, slots=True)
class SyncRow:
    account_id: int
    label: str | None
    account_status: str
    resource: str
    coverage_start: datetime | None
    coverage_end: datetime | None
    last_success_at: datetime | None
    last_error: str | None
    last_error_at: datetime | None
    backfill_since: datetime | None
    due_at: datetime | None
    failures: int | None
    running: bool | None
    last_run_status: str | None
    last_run_kind: str | None
    last_run_at: datetime | None
    now: datetime

    @property
    def lag_seconds(self) -> float | None:
        return None if self.coverage_end is None else max(0.0, (self.now - self.coverage_end).total_seconds())

    @property
    def backfill_fraction(self) -> float | None:
        """Share of [backfill since, coverage end] the store holds; None: no backfill asked."""
        if self.backfill_since is None:
            return None
        if self.coverage_start is None or self.coverage_end is None:
            return 0.0
        span = (self.coverage_end - self.backfill_since).total_seconds()
        if span <= 0:
            return 1.0
        return max(0.0, min(1.0, (self.coverage_end - self.coverage_start).total_seconds() / span))


@dataclass(frozen=True, slots=True)
class ScheduleRow:
    """A schedule of the organization (``relay schedules``) and its newest run."""

    id: int
    account_id: int | None  # None: every account
    resource: str | None  # None: every resource
    action: str
    cron: str
    paused: bool
    next_run_at: datetime
    last_due_at: datetime | None
    last_status: str | None
    last_finished_at: datetime | None
    last_rows_read: int | None
    last_error: str | None


_SCHEDULES_SQL = """
SELECT s.id, s.account_id, s.resource, s.action, s.cron, s.paused, s.next_run_at,
       r.due_at AS last_due_at, r.status AS last_status, r.finished_at AS last_finished_at,
       r.rows_read AS last_rows_read, r.error AS last_error
FROM schedules s
LEFT JOIN LATERAL (
    SELECT due_at, status, finished_at, rows_read, error FROM schedule_runs
    WHERE schedule_id = s.id ORDER BY started_at DESC, id DESC LIMIT 1
) r ON true
WHERE s.organization_id = %s
ORDER BY s.id
"""


@dataclass(frozen=True, slots=True)
class DayEarnings:
    day: date
    net: Decimal


async def viewer(conn: AsyncConnection, key_hash: bytes) -> Viewer | None:
    """The key's viewer (None: no such key), its view counted if the minute window has room."""
    return await _viewer(conn, _KEY_VIEWER_SQL, key_hash)


async def session_viewer(conn: AsyncConnection, token_hash: bytes) -> Viewer | None:
    """The viewer of a sign-in session (None: no such session, it ended, or its key was
    revoked or expired), its view counted like ``viewer``'s."""
    return await _viewer(conn, _SESSION_VIEWER_SQL, token_hash)


async def _viewer(conn: AsyncConnection, sql: str, digest: bytes) -> Viewer | None:
    async with conn.cursor(row_factory=class_row(Viewer)) as cursor:
        await cursor.execute(sql, (digest,))
        return await cursor.fetchone()


async def sync_rows(conn: AsyncConnection, organization_id: int) -> list[SyncRow]:
    async with conn.cursor(row_factory=class_row(SyncRow)) as cursor:
        await cursor.execute(_SYNC_SQL, (organization_id,))
        return await cursor.fetchall()


async def schedule_rows(conn: AsyncConnection, organization_id: int) -> list[ScheduleRow]:
    async with conn.cursor(row_factory=class_row(ScheduleRow)) as cursor:
        await cursor.execute(_SCHEDULES_SQL, (organization_id,))
        return await cursor.fetchall()


@dataclass(frozen=True, slots=True)
class StatusReads:
    """What one view of the page reads (kept ``RELAY_STATUS_CACHE_SECONDS`` per organization)."""

    sync: list[SyncRow]
    schedules: list[ScheduleRow]
    days: list[DayEarnings]


async def status_reads(conn: AsyncConnection, organization_id: int, days: int) -> StatusReads:
    return StatusReads(
        await sync_rows(conn, organization_id), await schedule_rows(conn, organization_id),
        await daily_earnings(conn, organization_id, days),
    )


async def daily_earnings(conn: AsyncConnection, organization_id: int, days: int) -> list[DayEarnings]:
    async with conn.cursor(row_factory=class_row(DayEarnings)) as cursor:
        await cursor.execute(_EARNINGS_SQL, {"days": days, "org": organization_id})
        return await cursor.fetchall()
