"""The earnings transactions feed, from the store or live: pages that never split a second.

Rows are ordered by (``created_at``, ``id``) descending. The spec's cursor is ``marker``
alone (unix seconds: the previous page's ``nextMarker``), and the next page is the rows
strictly before it. That is exact only if no page ends inside a second, so a page never
does (docs/api-decisions.md): when the row after a full page shares the page's last second,
the page ends before that second (it starts the next page whole), or, when the page is that
one second only, takes the whole second along. A page therefore holds at most
``FEED_PAGE_SIZE`` rows, except a page of one busy second, which holds all of that second.

The store query walks the ``(account_id, created_at, id)`` index backwards from the
cursor, so page 10,000 costs what page 1 costs. The pages that concurrent requests ask
of one account go to PostgreSQL together, one statement for many pages (``pages_statement``, a
batched read: ``app.store.batched``). ``marker_id`` (a tie-breaker that links handed out before
this rule carried) is still honoured, alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import msgspec
from psycopg import AsyncConnection, sql

from app.paging import LIST_PAGE, whole_groups
from app.params import upstream_timestamp
from app.store.batched import PerItem
from app.store.earnings import RESOURCE, _from_unix, _lane_filter, _unix
from app.store.mapping import write_items
from app.store.source import Coverage, Reader, Sourced
from app.upstream import paths

#: Rows per feed page: the upstream's page size (the spec gives the feed no ``limit``).
FEED_PAGE_SIZE = 10
#: Rows per upstream request while completing one busy second of a live page.
SECOND_BATCH = 100

@dataclass(frozen=True, slots=True)
class FeedQuery:
    """One feed page: the window, the lane filter and the cursor (all validated)."""

    start: datetime
    end: datetime
    type: str | None = None
    tips_source: str | None = None
    marker: int | None = None  # unix seconds: the previous page's nextMarker
    marker_id: str | None = None  # deprecated tie-breaker of links handed out earlier

    def upper(self, now: datetime) -> datetime:
        """The newest moment this page can hold: nothing exists after now."""
        return min(self.end, now)

    def remaining_end(self, now: datetime) -> datetime:
        """The end of the part of the window this page and the following ones still read."""
        upper = self.upper(now)
        return upper if self.marker is None else min(upper, _from_unix(self.marker))

    def upstream_params(self, limit: int = FEED_PAGE_SIZE + 1) -> dict[str, Any]:
        return {
            "start_date": upstream_timestamp(self.start),
            "end_date": upstream_timestamp(self.end),
            "limit": limit,
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
ORDER BY created_at DESC, id DESC{limit}
"""


def feed_statement(
    query: FeedQuery, account_id: int, now: datetime, *, limit: int | None = FEED_PAGE_SIZE + 1,
    floor: datetime | None = None,
) -> tuple[str, list]:
    """The keyset query of one page (exposed for EXPLAIN checks and the benchmark):
    ``limit`` rows (None: all) from the cursor down to ``floor`` (default: the window's start)."""
    params: list[Any] = [account_id, max(query.start, floor) if floor else query.start, query.upper(now)]
    if query.marker is None:
        cursor = ""
    elif query.marker_id is None:
        # The spec's cursor: the rows strictly before the marker's second (exact, because
        # no page ends inside a second).
        cursor = " AND created_at < %s"
        params.append(_from_unix(query.marker))
    else:
        cursor = " AND (created_at, id) < (%s, %s)"
        params += [_from_unix(query.marker), query.marker_id]
    # The rendered text, not an ``sql.SQL``: psycopg caches the conversion of a plain string.
    return _feed_text(query.type, query.tips_source, cursor, limit), params


@functools.lru_cache(maxsize=256)
def _feed_text(type_: str | None, tips_source: str | None, cursor: str, limit: int | None) -> str:
    """The feed statement of one shape, rendered once: composing it per request was a
    measurable part of the request (docs/benchmarks.md)."""
    return sql.SQL(_FEED_SQL).format(
        account=sql.Placeholder(),
        lane=_lane_filter(type_, tips_source),
        start=sql.Placeholder(),
        upper=sql.Placeholder(),
        cursor=sql.SQL(cursor),
        limit=sql.SQL("") if limit is None else sql.SQL("\nLIMIT {}").format(sql.Literal(limit)),
    ).as_string()


async def _rows(conn: AsyncConnection, query: FeedQuery, account_id: int, now: datetime, **kwargs) -> list:
    statement, params = feed_statement(query, account_id, now, **kwargs)
    cur = await conn.execute(statement, params, prepare=kwargs.get("limit", 0) is not None)
    return await cur.fetchall()


MICROSECOND = timedelta(microseconds=1)


@functools.lru_cache(maxsize=64)
def pages_statement(type_: str | None, tips_source: str | None) -> PerItem:
    """The batched page read of one lane and account: items (window start, exclusive bound)."""
    return PerItem(
        table="earnings",
        reads="created_at, id, payload",
        columns="extract(epoch FROM created_at)::bigint, id, payload::text",
        where=("account_id = %(account)s::bigint" + _lane_filter(type_, tips_source).as_string()
               + " AND created_at >= ({item}->>0)::timestamptz AND created_at < ({item}->>1)::timestamptz"),
        order="created_at DESC, id DESC",
        limit=FEED_PAGE_SIZE + 1,
    )


def page_item(query: FeedQuery, now: datetime) -> tuple[datetime, datetime]:
    """The page of ``query`` as an item of ``pages_statement``: the rows of [start, bound).
    ``created_at <= upper`` and ``< marker`` become one exclusive bound (PostgreSQL keeps
    microseconds), so each item is one index range scan."""
    bound = query.upper(now) + MICROSECOND
    if query.marker is not None:
        bound = min(bound, _from_unix(query.marker))
    return query.start, bound


async def _first_rows(reader: Reader, query: FeedQuery) -> list:
    """The page's rows and one more, by the feed's order: batched with other requests'
    pages, except for the deprecated ``marker_id`` cursor."""
    if query.marker_id is not None:
        return await reader.read(lambda conn: _rows(conn, query, reader.account_id, reader.now))
    statement = pages_statement(query.type, query.tips_source)
    return await reader.rows(statement, page_item(query, reader.now))


async def _busy_second(conn: AsyncConnection, query: FeedQuery, account_id: int, now: datetime, second: int):
    """All rows of one busy second (the whole page), and whether anything older remains."""
    page = await _rows(conn, query, account_id, now, limit=None, floor=_from_unix(second))
    older = await _rows(conn, replace(query, marker=second, marker_id=None), account_id, now, limit=1)
    return page, bool(older)


def _second(row: tuple) -> int:
    return row[0]


async def _feed_from_store(reader: Reader, query: FeedQuery) -> dict:
    found = await _first_rows(reader, query)
    page, split = whole_groups(found, FEED_PAGE_SIZE, _second)
    has_more = len(found) > len(page)
    if split is not None:
        # One busy second: take all of it, then look whether anything older remains.
        page, has_more = await reader.read(lambda conn: _busy_second(conn, query, reader.account_id, reader.now, split))
    last = page[-1] if page else None
    return {
        # Each payload goes out as the JSON text the store holds: no decode and re-encode.
        "list": [msgspec.Raw(payload) for _, _, payload in page],
        "marker": query.marker if query.marker is not None else _unix(query.upper(reader.now)),
        "hasMore": has_more,
        "nextMarker": last[0] if last else None,
        "nextMarkerId": last[1] if last else None,
    }


def _second_of(row: dict) -> int:
    return int(datetime.fromisoformat(row["createdAt"]).timestamp())


async def _feed_from_upstream(reader: Reader, query: FeedQuery) -> dict:
    """The upstream's page under the same rule. The upstream's own ``nextMarker`` has the
    flaw (its pages split seconds), so one more row is asked for to see a split, and a busy
    second is completed with the upstream's ``markerId`` tie-breaker."""
    body = await reader.live(paths.EARNINGS_TRANSACTIONS, query.upstream_params(), expect=LIST_PAGE)
    found = body["list"]
    page, split = whole_groups(found, FEED_PAGE_SIZE, _second_of)
    has_more = len(found) > len(page) or bool(body["hasMore"])
    if split is not None:
        has_more = False
        while True:
            cursor = replace(query, marker=split, marker_id=str(page[-1]["id"]))
            more = await reader.live(
                paths.EARNINGS_TRANSACTIONS, cursor.upstream_params(SECOND_BATCH), expect=LIST_PAGE
            )
            same = [r for r in more["list"] if _second_of(r) == split]
            page += same
            if len(same) < len(more["list"]) or not more["hasMore"]:
                has_more = len(same) < len(more["list"])
                break
    last = page[-1] if page else None
    return {
        "list": page,
        "marker": body.get("marker"),
        "hasMore": has_more,
        "nextMarker": _second_of(last) if last else None,
        "nextMarkerId": str(last["id"]) if last else None,
    }


async def feed(reader: Reader, query: FeedQuery) -> Sourced[dict]:
    """One page of the earnings feed, from the store when it covers the rest of the window."""

    async def from_store(_: Coverage) -> dict:
        return await _feed_from_store(reader, query)

    async def from_upstream() -> dict:
        return await _feed_from_upstream(reader, query)

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
