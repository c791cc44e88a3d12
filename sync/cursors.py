"""Cursor strategies: how one upstream endpoint is paged through a time window.

The engine reads every resource the same way: a *pass* walks one window ``[lo, hi]`` of
row times (unix seconds, both inclusive; ``lo`` None = from the beginning), newest row
first, one page at a time. A strategy knows only its endpoint's paging:

- ``request(lo, hi, position, page_size)``: the query of the next page (``position`` is
  None for the first page, else what ``advance`` returned);
- ``advance(body, rows, lo, hi, position)``: the position of the page after this one (None
  when the pass is complete) and the time of the page's oldest row.

A position is a small frozen Struct of the strategy (its ``position_type``), stored in
``sync_state.cursor`` (``sync.cursor_state``) in the same transaction as the page's rows, so
a pass resumes exactly where its last committed page ended.

Because every pass is newest-first, after a page whose oldest row has time ``t`` all rows
of the window newer than ``t`` are stored: seconds ``t + 1 .. hi`` are complete. That is
what lets a backfill extend coverage page by page (see docs/sync.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, ClassVar, Protocol, TypeVar

import msgspec

P = TypeVar("P")


class KeysetPosition(msgspec.Struct, frozen=True):
    """The last row read: its time (``nextMarker``) and id (``nextMarkerId``)."""

    marker: int
    marker_id: str


class SnapshotOffsetPosition(msgspec.Struct, frozen=True):
    """The next page's offset under the snapshot ``marker`` the first page pinned."""

    offset: int
    marker: int


class PublishTimePosition(msgspec.Struct, frozen=True):
    """``before_publish_time`` of the next page (six-decimal unix seconds, as sent)."""

    before: str


class OffsetPosition(msgspec.Struct, frozen=True):
    offset: int


class NoPosition(msgspec.Struct, frozen=True):
    """A strategy whose pass is one request has no next page to name."""


#: Any strategy's position; None before the first page and after the last.
Position = KeysetPosition | SnapshotOffsetPosition | PublishTimePosition | OffsetPosition | NoPosition | None


class Cursor(Protocol[P]):
    """What the engine asks of a paging strategy (the module docstring says how); ``P`` is
    its position Struct, ``position_type`` the same at run time (it decodes the stored one)."""

    position_type: ClassVar[type]

    def request(self, lo: int | None, hi: int, position: P | None, page_size: int) -> dict:
        """The query parameters of the next page."""
        ...

    def advance(
        self, body: dict, rows: list, lo: int | None, hi: int, position: P | None
    ) -> tuple[P | None, int | None]:
        """The next page's position (None: the pass is complete) and the page's oldest time."""
        ...

#: Lower bound sent when a pass reads "from the beginning" (the upstream's own default is
#: two years ago, which is not the beginning).
BEGINNING = 0


def iso(seconds: int) -> str:
    """Unix seconds as the ISO 8601 form the upstream accepts in query values."""
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def iso_seconds(value: str) -> int:
    """An upstream ISO 8601 timestamp as unix seconds."""
    return int(datetime.fromisoformat(value).timestamp())


def field_of(row: Any, name: str) -> Any:
    """A member of one row, whether decoded (dict) or raw JSON (``msgspec.Raw``)."""
    if isinstance(row, msgspec.Raw):
        row = msgspec.json.decode(row)
    return row[name]


def _window(lo: int | None, hi: int, start: str = "start_date", end: str = "end_date") -> dict:
    return {start: iso(BEGINNING if lo is None else lo), end: iso(hi)}


def _next_offset(
    body: dict, rows: list, position: OffsetPosition | SnapshotOffsetPosition | None, time_field: str
) -> tuple[int | None, int | None]:
    """Offset paging: the next page's offset (None after the last page) and the oldest time."""
    if not rows:
        return None, None
    oldest = iso_seconds(field_of(rows[-1], time_field))
    if not body.get("hasMore"):
        return None, oldest
    return (position.offset if position else 0) + len(rows), oldest


@dataclass(frozen=True, slots=True)
class KeysetTimeCursor:
    """Time-window feed with a tie-breaker: ``marker`` (time) plus ``markerId`` (id) name
    the last row seen, so rows sharing one second are never skipped or repeated (earnings).
    """

    max_page_size: int = 1000
    position_type: ClassVar[type] = KeysetPosition

    def request(self, lo: int | None, hi: int, position: KeysetPosition | None, page_size: int) -> dict:
        params = {**_window(lo, hi), "order": "desc", "limit": min(page_size, self.max_page_size)}
        if position:
            params["marker"] = position.marker
            params["markerId"] = position.marker_id
        return params

    def advance(
        self, body: dict, rows: list, lo, hi, position: KeysetPosition | None
    ) -> tuple[KeysetPosition | None, int | None]:
        if not rows:
            return None, None
        oldest = int(body["nextMarker"])
        if not body.get("hasMore"):
            return None, oldest
        return KeysetPosition(marker=oldest, marker_id=body["nextMarkerId"]), oldest


@dataclass(frozen=True, slots=True)
class SnapshotOffsetCursor:
    """Offset paging under a snapshot ``marker`` (chargebacks, payout requests): the first
    page's answer pins the snapshot, later pages pass it back so new rows never shift them.
    ``max_page_size`` None: the endpoint has a fixed page size and takes no ``limit``."""

    max_page_size: int | None = 100
    time_field: str = "createdAt"
    position_type: ClassVar[type] = SnapshotOffsetPosition

    def request(self, lo: int | None, hi: int, position: SnapshotOffsetPosition | None, page_size: int) -> dict:
        params: dict[str, Any] = _window(lo, hi)
        if self.max_page_size is not None:
            params["limit"] = min(page_size, self.max_page_size)
        if position:
            params["offset"] = position.offset
            params["marker"] = position.marker
        return params

    def advance(
        self, body: dict, rows: list, lo, hi, position: SnapshotOffsetPosition | None
    ) -> tuple[SnapshotOffsetPosition | None, int | None]:
        offset, oldest = _next_offset(body, rows, position, self.time_field)
        if offset is None:
            return None, oldest
        return SnapshotOffsetPosition(offset=offset, marker=body["marker"]), oldest


@dataclass(frozen=True, slots=True)
class PublishTimeCursor:
    """Newest-first feed paged by publish time (posts): ``before_publish_time`` is a bound
    (six-decimal unix seconds; the posts strictly before it). The endpoint has no date
    window, so the pass starts just after ``hi`` and stops once a page reaches ``lo``.

    Several posts may share one ``postedAtPrecise`` and the upstream's pages end inside such
    a group, so the next page starts one microsecond after the page's tail, inclusive of the
    tail's group: its posts already read come again (a harmless upsert), none is skipped. A
    page that is one group throughout cannot advance that way; its bound is the tail itself,
    and posts of that group beyond one page are the upstream's loss (docs/api-decisions.md).
    """

    max_page_size: int = 100
    position_type: ClassVar[type] = PublishTimePosition

    def request(self, lo: int | None, hi: int, position: PublishTimePosition | None, page_size: int) -> dict:
        before = position.before if position else f"{hi + 1}.000000"
        return {
            "order": "publish_date_desc",
            "limit": min(page_size, self.max_page_size),
            "counters": False,
            "before_publish_time": before,
        }

    def advance(
        self, body: dict, rows: list, lo, hi, position: PublishTimePosition | None
    ) -> tuple[PublishTimePosition | None, int | None]:
        if not rows:
            return None, None
        tail = body["tailMarker"]
        oldest = int(Decimal(tail))
        if not body.get("hasMore") or (lo is not None and oldest < lo):
            return None, oldest
        if Decimal(field_of(rows[0], "postedAtPrecise")) == Decimal(tail):
            return PublishTimePosition(before=tail), oldest
        return PublishTimePosition(before=f"{Decimal(tail) + Decimal('0.000001'):.6f}"), oldest


@dataclass(frozen=True, slots=True)
class OffsetListCursor:
    """A newest-first list paged by offset with no window and no snapshot (tracking links):
    read whole on every pass (full refresh). Rows created during a pass push older rows to
    later offsets, so a row may be read twice (a harmless upsert) but never missed."""

    max_page_size: int = 100
    time_field: str = "createdAt"
    position_type: ClassVar[type] = OffsetPosition

    def request(self, lo: int | None, hi: int, position: OffsetPosition | None, page_size: int) -> dict:
        return {"limit": min(page_size, self.max_page_size), "offset": position.offset if position else 0}

    def advance(
        self, body: dict, rows: list, lo, hi, position: OffsetPosition | None
    ) -> tuple[OffsetPosition | None, int | None]:
        offset, oldest = _next_offset(body, rows, position, self.time_field)
        return (None if offset is None else OffsetPosition(offset=offset)), oldest


@dataclass(frozen=True, slots=True)
class SingleRequestWindow:
    """The whole window in one answer (a tracking link's daily stats, ``date_start`` ..
    ``date_end``; no bound = unbounded)."""

    start_param: str = "date_start"
    end_param: str = "date_end"
    position_type: ClassVar[type] = NoPosition

    def request(self, lo: int | None, hi: int, position: NoPosition | None, page_size: int) -> dict:
        params = {self.end_param: iso(hi)}
        if lo is not None:
            params[self.start_param] = iso(lo)
        return params

    def advance(
        self, body: dict, rows: list, lo, hi, position: NoPosition | None
    ) -> tuple[NoPosition | None, int | None]:
        return None, None
