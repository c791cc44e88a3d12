"""Earnings from the store: the chart (the transactions feed is ``app.store.earnings_feed``).

It answers exactly what the upstream answers for the same window (docs/upstream.md), so a
caller cannot tell which source served it except by ``_meta._cache``.

Chart. Sums come from ``earnings_daily`` (a rollup kept by triggers on ``earnings``, see
migration 0004) for the whole UTC days of the window, and from ``earnings`` itself for the
partial days at its edges, so any window costs a few hundred rollup rows and at most four
partial days of raw rows -- a two-year chart never scans a million rows. The buckets are
listed in Python, one label each: the window is at most RELAY_CHART_WINDOW_MAX_DAYS long
(25 years by default: 302 monthly buckets), checked before any of this runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from psycopg import AsyncConnection, sql

from app.enums import CHART_SERIES
from app.params import previous_window, upstream_timestamp
from app.store.source import Coverage, Reader, Sourced
from app.upstream import paths

RESOURCE = "earnings"

#: Windows up to this many days get daily buckets, longer ones calendar months (the
#: upstream's threshold: ``end - start + 1 second <= 90 days``).
DAILY_MAX_DAYS = 90

DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


def _lane_filter(type_: str | None, tips_source: str | None) -> sql.Composable:
    """``AND type = .. AND tips_source = ..`` for what is given (nothing for "all")."""
    parts: list[sql.Composable] = [sql.SQL("")]
    if type_ is not None:
        parts.append(sql.SQL(" AND type = {}").format(sql.Literal(type_)))
    if tips_source is not None:
        parts.append(sql.SQL(" AND tips_source = {}").format(sql.Literal(tips_source)))
    return sql.Composed(parts)


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


def _from_unix(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


# --- the chart -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChartQuery:
    by: str
    start: datetime
    end: datetime

    @property
    def daily(self) -> bool:
        return self.end - self.start + SECOND <= timedelta(days=DAILY_MAX_DAYS)

    @property
    def previous(self) -> tuple[datetime, datetime]:
        """The window of equal length just before this one (the ``delta`` baseline)."""
        return previous_window(self.start, self.end)

    def upstream_params(self) -> dict[str, Any]:
        return {"by": self.by, "start_date": upstream_timestamp(self.start), "end_date": upstream_timestamp(self.end)}


def _day_start(moment: datetime) -> datetime:
    return datetime.combine(moment.astimezone(UTC).date(), datetime.min.time(), tzinfo=UTC)


def _month_start(moment: datetime) -> datetime:
    return _day_start(moment).replace(day=1)


def _next_month(moment: datetime) -> datetime:
    return (moment.replace(day=28) + timedelta(days=4)).replace(day=1)


def bucket_labels(start: datetime, end: datetime, daily: bool) -> list[datetime]:
    """Each bucket's start, covering the whole window (empty buckets included)."""
    if end < start:
        return []
    cursor, last = (_day_start(start), _day_start(end)) if daily else (_month_start(start), _month_start(end))
    labels = [cursor]
    while cursor < last:  # stops at the last bucket: a step past it may leave year 9999
        cursor = cursor + DAY if daily else _next_month(cursor)
        labels.append(cursor)
    return labels


def whole_days(start: datetime, end: datetime) -> tuple[date, date]:
    """[first, last) of the UTC days lying wholly inside [start, end] (may be empty)."""
    first = _day_start(start)
    if first < start:
        first += DAY
    last = _day_start(end + SECOND)
    return first.date(), max(first, last).date()


_SUMS_SQL = """
WITH parts AS (
    SELECT day::timestamp AS at, rows AS n, net, gross
    FROM earnings_daily
    WHERE account_id = %(account)s{lane} AND day >= %(first_day)s AND day < %(last_day)s
  UNION ALL
    SELECT created_at AT TIME ZONE 'UTC', 1, net, amount
    FROM earnings
    WHERE account_id = %(account)s{lane}
      AND ((created_at >= %(start)s AND created_at < %(first_moment)s)
        OR (created_at >= %(last_moment)s AND created_at <= %(end)s))
)
SELECT {bucket} AS bucket, sum(n)::bigint, coalesce(sum(net), 0), coalesce(sum(gross), 0)
FROM parts
GROUP BY 1
"""


async def sums(
    conn: AsyncConnection,
    account_id: int,
    by: str,
    start: datetime,
    end: datetime,
    unit: str | None,
) -> dict[datetime | None, tuple[int, Decimal, Decimal]]:
    """(rows, net, gross) per ``unit`` bucket ('day', 'month') of [start, end], or in total
    (key None) when ``unit`` is None."""
    type_, source = CHART_SERIES[by]
    first_day, last_day = whole_days(start, end)
    first_moment = datetime.combine(first_day, datetime.min.time(), tzinfo=UTC)
    last_moment = datetime.combine(last_day, datetime.min.time(), tzinfo=UTC)
    # Without any whole day, every row of the window is an edge row: let the first edge
    # cover it all (and keep the second edge empty).
    if first_moment >= last_moment:
        first_moment = last_moment = end + SECOND
    bucket = sql.SQL("NULL::timestamp") if unit is None else sql.SQL("date_trunc({}, at)").format(sql.Literal(unit))
    lane = _lane_filter(type_, source)
    statement = sql.SQL(_SUMS_SQL).format(lane=lane, bucket=bucket)
    cur = await conn.execute(
        statement,
        {
            "account": account_id,
            "first_day": first_day,
            "last_day": last_day,
            "start": start,
            "end": end,
            "first_moment": first_moment,
            "last_moment": last_moment,
        },
    )
    out = {}
    for label, count, net, gross in await cur.fetchall():
        key = None if label is None else label.replace(tzinfo=UTC)
        out[key] = (count or 0, Decimal(net), Decimal(gross))
    return out


def percent_change(current: Decimal, previous: Decimal, places: int = 2) -> float | int:
    """``100 * (current - previous) / previous`` rounded half away from zero.

    The upstream's rule for a zero baseline: 0 when both are 0, 100 when only the
    baseline is 0. ``places=0`` gives an integer (the campaigns' deltas).
    """
    if previous == 0:
        value = Decimal(0 if current == 0 else 100)
    else:
        value = (current - previous) * 100 / previous
    rounded = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return int(rounded) if places == 0 else float(rounded)


def _money(value: Decimal) -> float:
    return float(value)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


async def _chart_from_store(conn: AsyncConnection, query: ChartQuery, account_id: int) -> dict:
    unit = "day" if query.daily else "month"
    per_bucket = await sums(conn, account_id, query.by, query.start, query.end, unit)
    before = await sums(conn, account_id, query.by, *query.previous, None)
    amounts, counts = [], []
    total_net = total_gross = Decimal(0)
    for label in bucket_labels(query.start, query.end, query.daily):
        count, net, gross = per_bucket.get(label, (0, Decimal(0), Decimal(0)))
        amounts.append({"date": iso(label), "count": _money(net)})
        counts.append({"date": iso(label), "count": count})
        total_net += net
        total_gross += gross
    previous_net = before.get(None, (0, Decimal(0), Decimal(0)))[1]
    return {
        "chartAmount": amounts,
        "chartCount": counts,
        "total": _money(total_net),
        "gross": _money(total_gross),
        "delta": percent_change(total_net, previous_net),
    }


async def chart(reader: Reader, query: ChartQuery) -> Sourced[dict]:
    """The earnings chart; the store must cover the previous window too (for ``delta``)."""

    async def from_store(_: Coverage) -> dict:
        return await reader.read(lambda conn: _chart_from_store(conn, query, reader.account_id))

    async def from_upstream() -> dict:
        return await reader.live(
            paths.EARNINGS_CHART, query.upstream_params(), expect={"chartAmount": list, "chartCount": list}
        )

    return await reader.answer(
        RESOURCE, query.previous[0], query.end, from_store=from_store, from_upstream=from_upstream
    )

