"""SQL of the status page (``GET /status``): who may see it, the sync of the organization's
accounts, and its daily earnings.

Every query is scoped to the caller's organization: an admin key sees its own accounts only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from psycopg import AsyncConnection
from psycopg.rows import class_row

#: An admin key of an organization, not revoked, not past a rotation's expiry.
_ADMIN_KEY_SQL = """
SELECT k.organization_id, o.name AS organization, k.role
FROM api_keys k JOIN organizations o ON o.id = k.organization_id
WHERE k.key_hash = %s AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
"""

_SYNC_SQL = """
SELECT a.id AS account_id, a.label, a.status AS account_status,
       coalesce(t.resource, s.resource) AS resource,
       s.coverage_start, s.coverage_end, s.last_success_at, s.last_error, s.last_error_at,
       t.backfill_since, t.due_at, t.failures,
       t.lease_expires_at > now() AS running,
       r.status AS last_run_status, r.kind AS last_run_kind,
       coalesce(r.finished_at, r.started_at) AS last_run_at,
       now() AS now
FROM accounts a
JOIN sync_tasks t ON t.account_id = a.id
LEFT JOIN sync_state s ON s.account_id = t.account_id AND s.resource = t.resource
LEFT JOIN LATERAL (
    SELECT status, kind, started_at, finished_at FROM sync_runs
    WHERE account_id = t.account_id AND resource = t.resource
    ORDER BY id DESC LIMIT 1
) r ON true
WHERE a.organization_id = %s
ORDER BY a.id, resource
"""

#: Net earnings per UTC day of the last ``days`` days up to the latest synced earnings (zero on
#: days without any), all of the organization's accounts together.
_EARNINGS_SQL = """
WITH last AS (
    -- the chart ends at the latest synced earnings (the upstream's clock), else today
    SELECT date_trunc('day', coalesce(max(s.coverage_end), now()), 'UTC') AS day
    FROM sync_state s JOIN accounts a ON a.id = s.account_id
    WHERE a.organization_id = %(org)s AND s.resource = 'earnings'
)
SELECT d.day::date AS day, coalesce(sum(e.net), 0) AS net
FROM last, generate_series(last.day - make_interval(days => %(days)s - 1), last.day,
                           interval '1 day') AS d(day)
LEFT JOIN earnings e
       ON e.account_id IN (SELECT id FROM accounts WHERE organization_id = %(org)s)
      AND e.created_at >= d.day AND e.created_at < d.day + interval '1 day'
GROUP BY d.day ORDER BY d.day
"""


@dataclass(frozen=True, slots=True)
class Viewer:
    organization_id: int
    organization: str
    role: str


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
class DayEarnings:
    day: date
    net: Decimal


async def viewer(conn: AsyncConnection, key_hash: bytes) -> Viewer | None:
    async with conn.cursor(row_factory=class_row(Viewer)) as cursor:
        await cursor.execute(_ADMIN_KEY_SQL, (key_hash,))
        return await cursor.fetchone()


async def sync_rows(conn: AsyncConnection, organization_id: int) -> list[SyncRow]:
    async with conn.cursor(row_factory=class_row(SyncRow)) as cursor:
        await cursor.execute(_SYNC_SQL, (organization_id,))
        return await cursor.fetchall()


async def daily_earnings(conn: AsyncConnection, organization_id: int, days: int) -> list[DayEarnings]:
    async with conn.cursor(row_factory=class_row(DayEarnings)) as cursor:
        await cursor.execute(_EARNINGS_SQL, {"days": days, "org": organization_id})
        return await cursor.fetchall()
