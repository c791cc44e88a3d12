"""The posts feed from the store: every filter, the five orders and the tailMarker cursor.

Each order is a strict total order on the posts table's columns, and a page is the posts
strictly after the cursor in that order (docs/upstream.md, "Orders and cursor"):

| order                  | key (direction)                         | cursor names       |
|------------------------|-----------------------------------------|--------------------|
| publish_date_desc      | posted_at_precise desc                  | a time bound       |
| publish_date_asc       | posted_at_precise asc                   | a time bound       |
| favorites_count_desc   | (favorites_count, posted_at_precise) desc | the last post seen |
| tips_summ_desc         | (tips_amount, posted_at_precise) desc   | the last post seen |
| tips_summ_asc          | (tips_amount, posted_at_precise) asc    | the last post seen |

The post id breaks ties, so each order is a strict total order, and the key columns each
have an ``(account_id, column, id)`` index. ``posted_at_precise`` is unique per post upstream
as a rule, but not always (posts published together share it), so the cursor, which is that
value alone, must not rely on it (issue 17, docs/api-decisions.md):

- the date orders page by a time bound: the posts strictly before/after the tailMarker. A
  page never ends inside a group of posts sharing one value (``app.paging``), so that bound
  loses no post;
- the value orders' tailMarker names the last post seen; when several posts share its value
  a page ends only on the first of them in the order (``app.store.posts_value_orders``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

import msgspec
from psycopg import AsyncConnection, sql

from app.paging import LIST_PAGE, whole_groups, whole_live_page
from app.store.mapping import write_items
from app.store.posts_value_orders import ValueOrder, value_order_page
from app.store.source import Coverage, Reader, Sourced
from app.upstream import paths

RESOURCE = "posts"

#: Page size bounds: below 1 is refused, above 100 is clamped (the spec's rule).
LIMIT_MAX = 100

Order = Literal[
    "publish_date_desc", "publish_date_asc", "favorites_count_desc", "tips_summ_desc", "tips_summ_asc"
]
MediaType = Literal["photos", "videos", "audios", "medias"]
ARCHIVES = ("archived", "private_archived")

# order -> (key columns, descending?, names a post?)
_ORDERS: dict[str, tuple[tuple[str, ...], bool, bool]] = {
    "publish_date_desc": (("posted_at_precise",), True, False),
    "publish_date_asc": (("posted_at_precise",), False, False),
    "favorites_count_desc": (("favorites_count", "posted_at_precise"), True, True),
    "tips_summ_desc": (("tips_amount", "posted_at_precise"), True, True),
    "tips_summ_asc": (("tips_amount", "posted_at_precise"), False, True),
}
_MEDIA = {
    "photos": ["photo"],
    "videos": ["video"],
    "audios": ["audio"],
    "medias": ["photo", "video", "audio"],
}


def cursor_parameter(order: str) -> str:
    """The cursor an order pages with: ascending orders go after, descending before."""
    return "before_publish_time" if _ORDERS[order][1] else "after_publish_time"


def _label(raw: str | None) -> str | int | None:
    """A label as the declaration let it through (``LABEL_PATTERN``): a bucket or an id."""
    if not raw:
        return None
    return raw if raw in ARCHIVES else int(raw)


@dataclass(frozen=True, slots=True)
class PostsQuery:
    """A posts query, its parameters already checked by their declarations
    (``app.routes.posts``); :meth:`parse` converts them."""

    order: str = "publish_date_desc"
    limit: int = 10
    media_type: str | None = None
    label: str | int | None = None
    exclude_label: str | int | None = None
    text: str | None = None
    pinned: bool | None = None
    counters: bool = True
    cursor: Decimal | None = None
    cursor_raw: str | None = None

    @classmethod
    def parse(
        cls,
        *,
        order: str,
        limit: int,
        media_type: str | None,
        label: str | None,
        exclude_label: str | None,
        text: str | None,
        pinned: bool | None,
        counters: bool,
        before_publish_time: str | None,
        after_publish_time: str | None,
    ) -> PostsQuery:
        """``cursor`` is the one cursor parameter the order pages with (``cursor_parameter``;
        the route refuses the other)."""
        raw = {"before_publish_time": before_publish_time, "after_publish_time": after_publish_time}[
            cursor_parameter(order)
        ] or None
        return cls(
            order=order,
            limit=min(limit, LIMIT_MAX),
            media_type=media_type,
            label=_label(label),
            exclude_label=_label(exclude_label),
            text=text or None,
            pinned=pinned,
            counters=counters,
            cursor=Decimal(raw) if raw else None,
            cursor_raw=raw,
        )

    def upstream_params(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            "order": self.order,
            "media_type": self.media_type,
            "label": self.label,
            "exclude_label": self.exclude_label,
            "query": self.text,
            "pinned": self.pinned,
            "counters": self.counters,
            cursor_parameter(self.order): self.cursor_raw,
        }


# --- SQL pieces ------------------------------------------------------------------------------

_NOT_ARCHIVED = sql.SQL("NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false)")


def _in_bucket(bucket: str | int) -> sql.Composable:
    if bucket == "archived":
        return sql.SQL("coalesce(is_archived, false)")
    if bucket == "private_archived":
        return sql.SQL("coalesce(is_private_archived, false)")
    return sql.SQL("coalesce(label_ids @> ARRAY[{}]::bigint[], false)").format(sql.Literal(bucket))


def filters(query: PostsQuery) -> list[sql.Composable]:
    """The WHERE conditions of the filters, combined with AND (docs/upstream.md, Filters)."""
    where: list[sql.Composable] = []
    if query.label in ARCHIVES:
        where.append(_in_bucket(query.label))
    else:
        # The feed proper: archived posts only show under their own label.
        where.append(_NOT_ARCHIVED)
        if query.label is not None:
            where.append(_in_bucket(query.label))
    if query.exclude_label is not None:
        where.append(sql.SQL("NOT {}").format(_in_bucket(query.exclude_label)))
    if query.media_type is not None:
        where.append(sql.SQL("media_types && {}::text[]").format(sql.Literal(_MEDIA[query.media_type])))
    if query.pinned is not None:
        where.append(sql.SQL("coalesce(is_pinned, false) = {}").format(sql.Literal(query.pinned)))
    if query.text is not None:
        where.append(sql.SQL("strpos(lower(raw_text), lower({})) > 0").format(sql.Literal(query.text)))
    return where


def _beyond(order: str, value: Decimal) -> sql.Composable:
    """The posts strictly beyond a time bound in a date order (before it when descending)."""
    comparison = "<" if _ORDERS[order][1] else ">"
    return sql.SQL("posted_at_precise {} {}").format(sql.SQL(comparison), sql.Literal(value))


def _cursor_condition(query: PostsQuery) -> list[sql.Composable]:
    """A date order's bound: the posts strictly beyond the cursor (none on a first page)."""
    return [] if query.cursor is None else [_beyond(query.order, query.cursor)]


async def _select(
    conn: AsyncConnection, where: list[sql.Composable], order: str, limit: int | None
) -> list[tuple[str, str, Decimal]]:
    """(payload, postedAtPrecise text, posted_at_precise) of the posts matching ``where`` in
    the order (the id last, so ties have one order), at most ``limit`` of them (None: all)."""
    columns, descending, _ = _ORDERS[order]
    direction = sql.SQL(" DESC" if descending else " ASC")
    statement = sql.SQL(
        "SELECT payload::text, payload->>'postedAtPrecise', posted_at_precise FROM posts WHERE {where} "
        "ORDER BY {order}{limit}"
    ).format(
        where=sql.SQL(" AND ").join(where),
        order=sql.SQL(", ").join(sql.Composed([sql.Identifier(c), direction]) for c in (*columns, "id")),
        limit=sql.SQL("") if limit is None else sql.SQL(" LIMIT {}").format(sql.Literal(limit)),
    )
    return await (await conn.execute(statement)).fetchall()


async def _rows(conn: AsyncConnection, account_id: int, query: PostsQuery) -> tuple[list, bool]:
    """The page's rows and whether more follow. In a date order the page never ends inside
    a group of posts sharing one ``posted_at_precise`` (``app.paging``): the tailMarker is a
    bound, and a split group would lose its rest on the next page. The value orders: see
    ``app.store.posts_value_orders``."""
    columns, descending, names_post = _ORDERS[query.order]
    if names_post:
        return await value_order_page(
            conn, ValueOrder(columns, descending), account_id, filters(query), query.cursor, query.limit,
            cursor_parameter(query.order),
        )
    where = [sql.SQL("account_id = {}").format(sql.Literal(account_id)), *filters(query)]
    found = await _select(conn, [*where, *_cursor_condition(query)], query.order, query.limit + 1)
    page, split = whole_groups(found, query.limit, lambda row: row[2])
    if split is None:
        return page, len(found) > len(page)
    # One busy value fills the page: take all of it, then look whether anything follows.
    same = sql.SQL("posted_at_precise = {}").format(sql.Literal(split))
    page = await _select(conn, [*where, same], query.order, None)
    return page, bool(await _select(conn, [*where, _beyond(query.order, split)], query.order, 1))


async def _page(conn: AsyncConnection, account_id: int, query: PostsQuery) -> dict[str, Any]:
    page, has_more = await _rows(conn, account_id, query)
    body: dict[str, Any] = {
        "list": [msgspec.Raw(row[0]) for row in page],
        "hasMore": has_more,
        "headMarker": page[0][1] if page else "",
        "tailMarker": page[-1][1] if page else "",
    }
    if query.counters:
        body["counters"] = await counters(conn, account_id)
    return body


_COUNTERS_SQL = """
SELECT posts, archived, private_archived, photos, videos, audios
FROM posts_counters WHERE account_id = %s
"""


async def counters(conn: AsyncConnection, account_id: int) -> dict[str, int | None]:
    """The counters block over all stored posts, whatever the filters: one row of the
    ``posts_counters`` rollup, which triggers on posts keep exact (migration 0011); an
    account without posts has no row, and all zeros.

    ``streamsCount`` is null: streams are not a synced resource, so the store does not know
    it (a null, never a made-up 0).
    """
    row = await (await conn.execute(_COUNTERS_SQL, (account_id,))).fetchone()
    posts, archived, private, photos, videos, audios = row or (0, 0, 0, 0, 0, 0)
    return {
        "audiosCount": audios,
        "photosCount": photos,
        "videosCount": videos,
        "mediasCount": photos + videos + audios,
        "postsCount": posts,
        "streamsCount": None,
        "archivedPostsCount": archived,
        "privateArchivedPostsCount": private,
    }


#: The smallest step of a tailMarker (six decimals).
_MICRO = Decimal("0.000001")
_UPSTREAM_PAGE = {**LIST_PAGE, "tailMarker": str}


def _precise(post: dict) -> Decimal:
    return Decimal(post["postedAtPrecise"])


async def _from_upstream(reader: Reader, query: PostsQuery) -> dict:
    """The upstream's page; in a date order, one that never ends inside a group of posts
    sharing one postedAtPrecise (``app.paging``). The upstream's own pages do, and its cursor
    is the bare value, so one post more is asked for to see a split, and a group that fills
    the page is read whole from a bound one microsecond beyond it (inclusive of the group).
    The value orders pass through: their upstream cursor names a post (see the module)."""
    if _ORDERS[query.order][2]:
        return await reader.live(paths.POSTS, query.upstream_params(), expect=_UPSTREAM_PAGE)
    cursor = cursor_parameter(query.order)
    first: dict = {}

    async def fetch(ask: int, through: Decimal | None = None) -> tuple[list, bool]:
        params = {**query.upstream_params(), "limit": ask}
        if through is not None:
            bound = through + _MICRO if _ORDERS[query.order][1] else through - _MICRO
            params |= {cursor: f"{bound:.6f}", "counters": False}
        body = await reader.live(paths.POSTS, params, expect=_UPSTREAM_PAGE)
        first.setdefault("body", body)
        return body["list"], body["hasMore"]

    page, has_more = await whole_live_page(fetch, query.limit, _precise, max_ask=LIMIT_MAX)
    return {
        **first["body"],
        "list": page,
        "hasMore": has_more,
        "headMarker": page[0]["postedAtPrecise"] if page else "",
        "tailMarker": page[-1]["postedAtPrecise"] if page else "",
    }


async def feed(reader: Reader, query: PostsQuery) -> Sourced[dict]:
    """One page of the posts feed; the feed has no date window, so the store must hold the
    whole history (a coverage from the beginning)."""

    async def from_store(_: Coverage) -> dict:
        return await reader.read(lambda conn: _page(conn, reader.account_id, query))

    async def from_upstream() -> dict:
        return await _from_upstream(reader, query)

    async def remember(conn: AsyncConnection, body: dict) -> None:
        await write_items(conn, "posts", reader.account_id, body["list"])

    return await reader.answer(
        RESOURCE, None, reader.now, from_store=from_store, from_upstream=from_upstream, remember=remember
    )
