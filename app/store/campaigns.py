"""Campaigns (tracking links) from the store: overview, daily chart and one link's stats.

All three are sums over ``tracking_link_daily_stats`` (one row per link and UTC day) and
counts over ``tracking_links``, with the upstream's rules (docs/upstream.md, "Campaigns"):
a null ``clicks`` counts as 0 in every sum but stays null in a link's daily metrics; the
days of a window run from the start's day to the end's day, never past today.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import msgspec
from psycopg import AsyncConnection

from app.db.rows import one
from app.errors import ApiError
from app.params import EARLIEST, DateWindow
from app.store.earnings import percent_change
from app.store.mapping import write_items
from app.store.source import Coverage, Reader, Sourced
from app.upstream import paths

LINKS = "tracking_links"
DAILY = "tracking_link_daily_stats"
DAY = timedelta(days=1)


def _days(first: date, last: date) -> list[date]:
    return [first + DAY * i for i in range((last - first).days + 1)]


def _money(value: Decimal) -> str:
    """A decimal string with exactly two places, as the upstream writes revenue."""
    return f"{value:.2f}"


def _at_midnight(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), tzinfo=UTC)


_DAILY_SUMS_SQL = """
SELECT date, sum(coalesce(clicks, 0))::bigint, sum(coalesce(subs, 0))::bigint
FROM tracking_link_daily_stats
WHERE account_id = %s AND date >= %s AND date <= %s
GROUP BY date
"""

_LINKS_CREATED_SQL = """
SELECT count(*) FROM tracking_links
WHERE account_id = %s AND created_at >= %s AND created_at <= %s
"""


def _window_days(window: DateWindow, now: datetime) -> tuple[date, date]:
    """The days a window spans, the end's day clamped to today."""
    return window.start.date(), min(window.end.date(), now.date())


def _previous_days(window: DateWindow) -> tuple[date, date]:
    """As many days as the window spans (today's clamp ignored), just before it; never
    before EARLIEST's day (nothing is stored before it)."""
    first = window.start.date()
    span = min((window.end.date() - first).days + 1, (first - EARLIEST.date()).days)
    return first - DAY * span, first - DAY


async def _daily(conn: AsyncConnection, account_id: int, first: date, last: date) -> dict[date, tuple[int, int]]:
    cur = await conn.execute(_DAILY_SUMS_SQL, (account_id, first, last))
    return {day: (clicks, claims) for day, clicks, claims in await cur.fetchall()}


def _series(days: list[date], sums: dict[date, tuple[int, int]], which: int) -> list[dict]:
    return [{"date": d.isoformat(), "count": sums.get(d, (0, 0))[which]} for d in days]


async def _links_created(conn: AsyncConnection, account_id: int, start: datetime, end: datetime) -> int:
    cur = await conn.execute(_LINKS_CREATED_SQL, (account_id, start, end))
    return one(await cur.fetchone())[0]


async def _chart_from_store(conn: AsyncConnection, account_id: int, window: DateWindow, now: datetime) -> dict:
    first, last = _window_days(window, now)
    sums = await _daily(conn, account_id, first, last)
    days = _days(first, last)
    return {"clicks": _series(days, sums, 0), "claims": _series(days, sums, 1)}


async def _overview_from_store(conn: AsyncConnection, account_id: int, window: DateWindow, now: datetime) -> dict:
    first, last = _window_days(window, now)
    days = _days(first, last)
    sums = await _daily(conn, account_id, first, last)
    before = await _daily(conn, account_id, *_previous_days(window))
    count = await _links_created(conn, account_id, window.start, min(window.end, now))
    previous = window.previous
    previous_count = await _links_created(conn, account_id, previous.start, min(previous.end, now))
    any_link = await _links_created(conn, account_id, EARLIEST, now)

    def total(values: dict, which: int) -> int:
        return sum(v[which] for v in values.values())

    totals = {
        "count": (count, previous_count),
        "claims": (total(sums, 1), total(before, 1)),
        "clicks": (total(sums, 0), total(before, 0)),
    }
    return {
        "campaigns": {
            "hasStatistic": any_link > 0,
            **{
                name: {"total": cur, "delta": percent_change(Decimal(cur), Decimal(prev), places=0)}
                for name, (cur, prev) in totals.items()
            },
            "chartData": _series(days, sums, 1),
        }
    }


def _window_start(window: DateWindow) -> datetime:
    """The oldest moment the overview reads: the previous period of days or of seconds."""
    return min(_at_midnight(_previous_days(window)[0]), window.previous.start)


async def chart(reader: Reader, window: DateWindow) -> Sourced[dict]:
    async def from_store(_: Coverage) -> dict:
        return await reader.read(lambda conn: _chart_from_store(conn, reader.account_id, window, reader.now))

    async def from_upstream() -> dict:
        return await reader.live(paths.CAMPAIGNS_CHART, window.upstream(), expect={"clicks": list, "claims": list})

    return await reader.answer(
        DAILY, _at_midnight(window.start.date()), window.end, from_store=from_store, from_upstream=from_upstream
    )


async def overview(reader: Reader, window: DateWindow) -> Sourced[dict]:
    async def from_store(_: Coverage) -> dict:
        return await reader.read(lambda conn: _overview_from_store(conn, reader.account_id, window, reader.now))

    async def from_upstream() -> dict:
        return await reader.live(paths.CAMPAIGNS_OVERVIEW, window.upstream(), expect={"campaigns": dict})

    return await reader.answer(
        (LINKS, DAILY), _window_start(window), window.end, from_store=from_store, from_upstream=from_upstream
    )


# --- one link's stats ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StatsQuery:
    link_id: int
    window: DateWindow  # open ends: EARLIEST / LATEST, not sent upstream

    def upstream_params(self) -> dict[str, Any]:
        return self.window.upstream("date_start", "date_end")


_LINK_SQL = "SELECT created_at FROM tracking_links WHERE account_id = %s AND id = %s"

_LINK_DAYS_SQL = """
SELECT payload::text FROM tracking_link_daily_stats
WHERE account_id = %s AND link_id = %s AND date >= %s AND date <= %s
ORDER BY date
"""

_LINK_MONTHS_SQL = """
SELECT date_trunc('month', date)::date, sum(coalesce(clicks, 0))::bigint, sum(subs)::bigint,
       coalesce(sum(revenue), 0), sum(spenders)::bigint
FROM tracking_link_daily_stats
WHERE account_id = %s AND link_id = %s AND date >= %s AND date <= %s
GROUP BY 1 ORDER BY 1
"""


async def _stats_from_store(conn: AsyncConnection, account_id: int, query: StatsQuery, now: datetime) -> dict:
    created = await (await conn.execute(_LINK_SQL, (account_id, query.link_id))).fetchone()
    if created is None or created[0] > now:
        raise ApiError(404, f"tracking link {query.link_id} not found", "not_found")
    first = query.window.start.date()
    last = min(query.window.end.date(), now.date())
    bounds = (account_id, query.link_id, first, last)
    daily = [msgspec.Raw(p) for (p,) in await (await conn.execute(_LINK_DAYS_SQL, bounds)).fetchall()]
    months = await (await conn.execute(_LINK_MONTHS_SQL, bounds)).fetchall()
    return {
        "summary": {
            "clicks_total": sum(m[1] for m in months),
            "subs_total": sum(m[2] or 0 for m in months),
            "revenue_total": _money(sum((m[3] for m in months), Decimal(0))),
            "spenders_total": sum(m[4] or 0 for m in months),
            # The upstream's own scan time is not something the sync stores.
            "last_scanned_at": None,
        },
        "daily_metrics": daily,
        "monthly_metrics": [
            {"timestamp": month.isoformat(), "clicks": clicks, "subs": subs, "revenue": _money(revenue), "spenders": spenders}
            for month, clicks, subs, revenue, spenders in months
        ],
    }


async def link_stats(reader: Reader, query: StatsQuery) -> Sourced[dict]:
    async def from_store(_: Coverage) -> dict:
        return await reader.read(lambda conn: _stats_from_store(conn, reader.account_id, query, reader.now))

    async def from_upstream() -> dict:
        return await reader.live(
            paths.TRACKING_LINK_STATS,
            query.upstream_params(),
            path_params={"link_id": query.link_id},
            expect={"summary": dict, "daily_metrics": list},
        )

    async def remember(conn: AsyncConnection, body: dict) -> None:
        await write_items(conn, DAILY, reader.account_id, body["daily_metrics"], link_id=query.link_id)

    return await reader.answer(
        (LINKS, DAILY), _at_midnight(query.window.start.date()), query.window.end,
        from_store=from_store, from_upstream=from_upstream, remember=remember,
    )
