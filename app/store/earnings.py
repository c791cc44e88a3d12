"""Earnings from the store: the transactions feed (keyset paging) and the chart.

Both answer exactly what the upstream answers for the same window (docs/upstream.md), so a
caller cannot tell which source served it except by ``_meta._cache``.

Feed. Rows are ordered by (``created_at``, ``id``) descending -- a strict total order even
when many rows share one second -- and a page is the rows strictly before the cursor
(``marker`` seconds, ``marker_id``). The query walks the ``(account_id, created_at, id)``
index backwards from the cursor, so page 10,000 costs what page 1 costs.

Chart. Sums come from ``earnings_daily`` (a rollup kept by triggers on ``earnings``, see
migration 0004) for the whole UTC days of the window, and from ``earnings`` itself for the
partial days at its edges, so any window costs a few hundred rollup rows and at most four
partial days of raw rows -- a two-year chart never scans a million rows.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import msgspec
from psycopg import AsyncConnection, sql

from app.enums import CHART_SERIES
from app.live import LIST_PAGE
from app.params import previous_window, upstream_timestamp
from app.store.mapping import write_items
from app.store.source import Coverage, Reader, Sourced
from app.upstream import paths

RESOURCE = "earnings"

#: Rows per feed page: the upstream's page size (the spec gives the feed no ``limit``).
FEED_PAGE_SIZE = 10

#: Windows up to this many days get daily buckets, longer ones calendar months (the
#: upstream's threshold: ``end - start + 1 second <= 90 days``).
DAILY_MAX_DAYS = 90

DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


def _lane_filter(type_: str | None, tips_source: str | None) -> sql.Composable:
    """``AND type = .. AND tips_source = ..`` for what is given (nothing for "all")."""
    parts = [sql.SQL("")]
    if type_ is not None:
        parts.append(sql.SQL(" AND type = {}").format(sql.Literal(type_)))
    if tips_source is not None:
        parts.append(sql.SQL(" AND tips_source = {}").format(sql.Literal(tips_source)))
    return sql.Composed(parts)


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


def _from_unix(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


# --- the feed ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FeedQuery:
    """One feed page: the window, the lane filter and the cursor (all validated)."""

    start: datetime
    end: datetime
    type: str | None = None
    tips_source: str | None = None
    marker: int | None = None  # unix seconds: the previous page's nextMarker
    marker_id: str | None = None  # the previous page's nextMarkerId (tie-breaker)

    def upper(self, now: datetime) -> datetime:
        """The newest moment this page can hold: nothing exists after now."""
        return min(self.end, now)

    def remaining_end(self, now: datetime) -> datetime:
        """The end of the part of the window this page and the following ones still read."""
        upper = self.upper(now)
        return upper if self.marker is None else min(upper, _from_unix(self.marker))

    def upstream_params(self) -> dict[str, Any]:
        return {
            "start_date": upstream_timestamp(self.start),
            "end_date": upstream_timestamp(self.end),
            "limit": FEED_PAGE_SIZE,
            "marker": self.marker,
            "markerId": self.marker_id if self.marker is not None else None,
            "type": self.type,
            "tipsSource": self.tips_source,
        }

    def lane(self) -> tuple[str, str | None] | None:
        """The one (type, tips source) every row of the answer has, when the query fixes it.

        Only then can a live page be written back: a row's type is known only from the
        query that returned it.
        """
        if self.type is None or (self.type == "tips" and self.tips_source is None):
            return None
        return self.type, self.tips_source


_FEED_SQL = """
SELECT extract(epoch FROM created_at)::bigint, id, payload::text
FROM earnings
WHERE account_id = {account}{lane}
  AND created_at >= {start} AND created_at <= {upper}{cursor}
ORDER BY created_at DESC, id DESC
LIMIT {limit}
"""


def feed_statement(query: FeedQuery, account_id: int, now: datetime) -> tuple[sql.Composed, list]:
    """The keyset query of one page (exposed for EXPLAIN checks and the benchmark)."""
    params: list[Any] = [account_id, query.start, query.upper(now)]
    if query.marker is None:
        cursor = ""
    elif query.marker_id is None:
        # A bare second: the rows of that second were on the previous page or are skipped,
        # as upstream (the next_page we write always carries marker_id).
        cursor = " AND created_at < %s"
        params.append(_from_unix(query.marker))
    else:
        cursor = " AND (created_at, id) < (%s, %s)"
        params += [_from_unix(query.marker), query.marker_id]
    return sql.SQL(_feed_text(query.type, query.tips_source, cursor)), params


@functools.lru_cache(maxsize=128)
def _feed_text(type_: str | None, tips_source: str | None, cursor: str) -> str:
    """The feed statement of one shape, rendered once: composing it on every request cost
    about a tenth of the request (docs/benchmarks.md)."""
    return sql.SQL(_FEED_SQL).format(
        account=sql.Placeholder(),
        lane=_lane_filter(type_, tips_source),
        start=sql.Placeholder(),
        upper=sql.Placeholder(),
        cursor=sql.SQL(cursor),
        limit=sql.Literal(FEED_PAGE_SIZE + 1),
    ).as_string()


async def _feed_from_store(conn: AsyncConnection, query: FeedQuery, account_id: int, now: datetime) -> dict:
    statement, params = feed_statement(query, account_id, now)
    cur = await conn.execute(statement, params, prepare=True)
    found = await cur.fetchall()
    page = found[:FEED_PAGE_SIZE]
    last = page[-1] if page else None
    return {
        # Each payload goes out as the JSON text the store holds: no decode and re-encode.
        "list": [msgspec.Raw(payload) for _, _, payload in page],
        "marker": query.marker if query.marker is not None else _unix(query.upper(now)),
        "hasMore": len(found) > FEED_PAGE_SIZE,
        "nextMarker": last[0] if last else None,
        "nextMarkerId": last[1] if last else None,
    }


async def feed(reader: Reader, query: FeedQuery) -> Sourced[dict]:
    """One page of the earnings feed, from the store when it covers the rest of the window."""

    async def from_store(conn: AsyncConnection, _: Coverage) -> dict:
        return await _feed_from_store(conn, query, reader.account_id, reader.now)

    async def from_upstream() -> dict:
        return await reader.live(
            paths.EARNINGS_TRANSACTIONS,
            query.upstream_params(),
            expect=LIST_PAGE,
        )

    async def remember(conn: AsyncConnection, body: dict) -> None:
        lane = query.lane()
        if lane is not None:
            type_, source = lane
            await write_items(conn, "earnings", reader.account_id, body["list"], type=type_, tips_source=source)

    return await reader.answer(
        RESOURCE,
        query.start,
        query.remaining_end(reader.now),
        from_store=from_store,
        from_upstream=from_upstream,
        remember=remember,
    )


def feed_next(body: dict, start: datetime) -> dict[str, object] | None:
    """The next page's parameters: the window start pinned, and the full (time, id) cursor.

    ``start_date`` is pinned to the value this page used: a default ("two years ago")
    recomputed on a later page would move. ``marker_id`` is what makes a walk exact when
    many rows share the cursor's second.
    """
    if not body.get("hasMore") or body.get("nextMarker") is None:
        return None
    following: dict[str, object] = {"start_date": upstream_timestamp(start), "marker": body["nextMarker"]}
    if body.get("nextMarkerId") is not None:
        following["marker_id"] = body["nextMarkerId"]
    return following


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

    async def from_store(conn: AsyncConnection, _: Coverage) -> dict:
        return await _chart_from_store(conn, query, reader.account_id)

    async def from_upstream() -> dict:
        return await reader.live(
            paths.EARNINGS_CHART, query.upstream_params(), expect={"chartAmount": list, "chartCount": list}
        )

    return await reader.answer(
        RESOURCE, query.previous[0], query.end, from_store=from_store, from_upstream=from_upstream
    )

