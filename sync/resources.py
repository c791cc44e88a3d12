"""The declarative registry: one small description per synced resource.

A description is data: the upstream path (a constant of ``app.upstream.paths``), how the
endpoint pages (a strategy of ``sync.cursors``), the partitions it is read in (one query
per earnings type and tips source, per posts archive bucket, per tracking link), where the
rows sit in an answer, the target table (``app.store.mapping.TABLES``: its columns, key
and upsert, the one definition the store's write-back uses too), its head check (one cheap
request that says whether anything new appeared, ``sync.heads``) and its cadences: the head
interval, the lookback window and how often that is re-read. ``sync.engine`` runs any of
them; ``sync.writers`` builds its statement from the
table. The table's column expressions read ``%(name)s`` parameters from the partition's
``constants`` (e.g. the earnings ``type`` the query asked for).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import msgspec
from psycopg import AsyncConnection

from app.enums import EARNINGS_TYPES, TIPS_SOURCES
from app.setting_values import parse_durations
from app.settings import Settings
from app.store.mapping import TABLES, SyncedTable
from app.upstream import paths
from sync.cursors import (
    Cursor,
    KeysetTimeCursor,
    OffsetListCursor,
    PublishTimeCursor,
    SingleRequestWindow,
    SnapshotOffsetCursor,
)
from sync.heads import HeadCheck, NewDay, NewestFirstList, NewestInWindow, PostsHead
from sync.state import stored_link_ids

__all__ = ["EARNINGS_TYPES", "REGISTRY", "TIPS_SOURCES", "Partition", "Resource", "resource"]

MINUTE = 60
DAY = 86400


@dataclass(frozen=True, slots=True)
class Partition:
    """One query of a resource: its extra query and path parameters, and the constants
    its rows carry into typed columns (e.g. the earnings ``type`` the query asked for)."""

    name: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    path_params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    constants: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


PartitionSource = Callable[[AsyncConnection, int], Awaitable[list[Partition]]]


@dataclass(frozen=True, slots=True)
class Resource:
    table: SyncedTable  # its name is the resource's: the task's name, the CLI's --resource
    path: str
    cursor: Cursor
    rows_member: str = "list"
    partitions: tuple[Partition, ...] | PartitionSource = (Partition("all"),)
    # Asked every ``interval`` whether new rows appeared; None: every incremental run
    # reads its partitions (then ``interval`` is the time between passes).
    head: HeadCheck | None = None
    # The head interval: with the pass it may trigger, how late a new row reaches the store.
    interval: int = MINUTE
    lookback: int = 0
    # How often (upstream time) the incremental run re-reads the whole lookback window for
    # values that change late; between those re-reads a pass reads only new rows.
    lookback_interval: int = 30 * MINUTE
    # Every incremental pass reads everything (no lookback, nothing to backfill).
    full_refresh: bool = False
    # Resources whose rows must be stored first (their partitions are read from them).
    after: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.table.name

    def rows(self, body: Any) -> list:
        rows = body.get(self.rows_member) if isinstance(body, dict) else None
        return rows or []

    def decode_page(self, body: bytes) -> Any:
        """An answer's body with its rows left as raw JSON items (``msgspec.Raw``, one
        slice of the body each): the writer stages them as they came, so the worker never
        builds a Python object per row. The other members are decoded as usual."""
        return decode_page(body, self.rows_member)

    @property
    def fixed_partitions(self) -> tuple[Partition, ...]:
        """The partitions of a resource that declares them (not read from the store)."""
        if not isinstance(self.partitions, tuple):
            raise TypeError(f"{self.name}'s partitions are read from the store (partitions_of)")
        return self.partitions

    async def partitions_of(self, conn: AsyncConnection, account_id: int) -> list[Partition]:
        if isinstance(self.partitions, tuple):
            return list(self.partitions)
        return await self.partitions(conn, account_id)


_top = msgspec.json.Decoder(dict[str, msgspec.Raw])
_items = msgspec.json.Decoder(list[msgspec.Raw])
_any = msgspec.json.Decoder()


def decode_page(body: bytes, rows_member: str) -> Any:
    """``body`` decoded, except ``body[rows_member]``: a list of ``msgspec.Raw`` items.

    A body that is not an object, or rows that are not a list, decode as usual. Invalid
    JSON raises ``msgspec.DecodeError`` (the client's "broken body", retried)."""
    try:
        top = _top.decode(body)
    except msgspec.ValidationError:
        return _any.decode(body)
    page: dict[str, Any] = {}
    for name, raw in top.items():
        if name == rows_member:
            try:
                page[name] = _items.decode(raw)
                continue
            except msgspec.ValidationError:
                pass
        page[name] = _any.decode(raw)
    return page


# --- earnings -----------------------------------------------------------------------

def _earnings_partitions() -> tuple[Partition, ...]:
    """One query per type, and tips once per source: each stored row knows both from the
    query that returned it. The nine queries together return every row exactly once."""
    parts = []
    for type_ in EARNINGS_TYPES:
        sources = TIPS_SOURCES if type_ == "tips" else (None,)
        for source in sources:
            parts.append(
                Partition(
                    name=type_ if source is None else f"{type_}.{source}",
                    params=MappingProxyType({"type": type_, "tipsSource": source}),
                    constants=MappingProxyType({"type": type_, "tips_source": source}),
                )
            )
    return tuple(parts)


EARNINGS = Resource(
    table=TABLES["earnings"],
    path=paths.EARNINGS_TRANSACTIONS,
    cursor=KeysetTimeCursor(max_page_size=1000),
    partitions=_earnings_partitions(),
    head=NewestInWindow(KeysetTimeCursor(max_page_size=1000)),
    interval=MINUTE,
    # A payment stays `loading` for its payoutPendingDays (up to 21 seen), then settles.
    lookback=22 * DAY,
)

# --- payouts ------------------------------------------------------------------------

CHARGEBACKS = Resource(
    table=TABLES["chargebacks"],
    path=paths.PAYOUTS_CHARGEBACKS,
    cursor=SnapshotOffsetCursor(max_page_size=100),
    head=NewestInWindow(SnapshotOffsetCursor(max_page_size=100)),
    interval=90,
    lookback=30 * DAY,
)

PAYOUT_REQUESTS = Resource(
    table=TABLES["payout_requests"],
    path=paths.PAYOUTS_REQUESTS,
    # The endpoint's page size is fixed at 10 and it takes no limit.
    cursor=SnapshotOffsetCursor(max_page_size=None),
    head=NewestInWindow(SnapshotOffsetCursor(max_page_size=None)),
    interval=90,
    # A request is pending for its first days, then approved or rejected.
    lookback=30 * DAY,
)

# --- posts --------------------------------------------------------------------------

POSTS = Resource(
    table=TABLES["posts"],
    path=paths.POSTS,
    cursor=PublishTimeCursor(max_page_size=100),
    # The default feed leaves archived posts out; each archive bucket is its own query.
    partitions=(
        Partition("feed"),
        Partition("archived", params=MappingProxyType({"label": "archived"})),
        Partition("private_archived", params=MappingProxyType({"label": "private_archived"})),
    ),
    head=PostsHead(),
    interval=MINUTE,
    # Favorites and tips keep changing on recent posts.
    lookback=30 * DAY,
)

# --- campaigns (tracking links) -----------------------------------------------------

TRACKING_LINKS = Resource(
    table=TABLES["tracking_links"],
    path=paths.TRACKING_LINKS,
    cursor=OffsetListCursor(max_page_size=100),
    head=NewestFirstList(),
    interval=90,
    # Each lookback re-read is a full refresh (a link's name may change).
    full_refresh=True,
)


async def _stored_links(conn: AsyncConnection, account_id: int) -> list[Partition]:
    """One stats query per tracking link the store holds for the account."""
    return [
        Partition(
            name=str(link_id),
            path_params=MappingProxyType({"link_id": link_id}),
            constants=MappingProxyType({"link_id": link_id}),
        )
        for link_id in await stored_link_ids(conn, account_id)
    ]


TRACKING_LINK_DAILY_STATS = Resource(
    table=TABLES["tracking_link_daily_stats"],
    path=paths.TRACKING_LINK_STATS,
    cursor=SingleRequestWindow(),
    rows_member="daily_metrics",
    partitions=_stored_links,
    head=NewDay(),
    interval=90,
    # Today's counts grow until the day ends; late scans may revise the day before.
    lookback=3 * DAY,
    after=("tracking_links",),
)

REGISTRY: Mapping[str, Resource] = MappingProxyType({
    r.name: r
    for r in (EARNINGS, CHARGEBACKS, PAYOUT_REQUESTS, POSTS, TRACKING_LINKS, TRACKING_LINK_DAILY_STATS)
})


def resource(name: str) -> Resource:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown resource {name!r}; known: {', '.join(REGISTRY)}") from None


def interval_of(settings: Settings, res: Resource) -> int:
    """Seconds between head checks (incremental runs): the setting's override, else the
    description's."""
    return parse_durations(settings.sync_intervals).get(res.name, res.interval)


def lookback_interval_of(settings: Settings, res: Resource) -> int:
    """Upstream seconds between re-reads of the lookback window."""
    return parse_durations(settings.sync_lookback_intervals).get(res.name, res.lookback_interval)


def lookback_of(settings: Settings, res: Resource) -> int:
    """Seconds each incremental pass re-reads before the coverage end."""
    if res.full_refresh:
        return 0
    return parse_durations(settings.sync_lookbacks).get(res.name, res.lookback)
