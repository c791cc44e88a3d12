"""Endless timelines: row i of a resource is a pure function of i, with time monotonic in i.

A :class:`Timeline` places ``n`` rows evenly over ``[start, start + span)`` and continues at
the same rate forever after (new rows "appear" as the sandbox clock moves past them):

    t_i = start + floor(i * span / n)

Several rows share one second when dense. Finding the first row at or after a time is
arithmetic (:meth:`Timeline.first_at_or_after`), never a scan, so any window or page of a
1,000,000-row account costs the same as the first.

Row ids are ``id_base + i * stride + lane``: increasing in i, so within one timeline the
pair (time, id) is increasing in i too, and several timelines (lanes) can be merged into one
strict total order on (time, id) -- see :func:`keyset_page`.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice


@dataclass(frozen=True, slots=True)
class Timeline:
    start: int  # unix seconds of row 0
    span: int  # seconds over which the first n rows are spread
    n: int  # rows in [start, start + span); 0 means an empty timeline
    id_base: int = 0
    stride: int = 1
    lane: int = 0

    def time_of(self, i: int) -> int:
        return self.start + i * self.span // self.n

    def id_of(self, i: int) -> int:
        return self.id_base + i * self.stride + self.lane

    def index_of_id(self, row_id: int) -> int | None:
        """The index whose id is ``row_id``, or None when the id is not of this timeline."""
        i, rem = divmod(row_id - self.id_base - self.lane, self.stride)
        return i if rem == 0 and i >= 0 and self.n > 0 else None

    def first_at_or_after(self, t: int) -> int:
        """Smallest i with t_i >= t (i.e. the count of rows strictly before t)."""
        if self.n <= 0:
            return 0
        d = t - self.start
        if d <= 0:
            return 0
        return -((-d * self.n) // self.span)  # ceil(d * n / span)

    def window(self, lo: int, hi: int) -> range:
        """Indexes of rows with lo <= t_i <= hi (both inclusive)."""
        if self.n <= 0 or hi < lo:
            return range(0)
        return range(self.first_at_or_after(lo), self.first_at_or_after(hi + 1))

    def _first_id_at_least(self, row_id: int) -> int:
        """Smallest i >= 0 with id_i >= row_id."""
        return max(0, -((-(row_id - self.id_base - self.lane)) // self.stride))

    def cursor_split(self, t: int, row_id: int | None) -> int:
        """Index of the first row with (t_i, id_i) > (t, row_id).

        Without ``row_id`` the cursor is the whole second: rows of second t count as "before".
        """
        first_same = self.first_at_or_after(t)
        first_after = self.first_at_or_after(t + 1)
        if row_id is None:
            return first_after
        return min(max(self._first_id_at_least(row_id + 1), first_same), first_after)

    def cursor_split_desc(self, t: int, row_id: int | None) -> int:
        """Index of the first row with (t_i, id_i) >= (t, row_id): rows below it come after
        the cursor in descending order. Without ``row_id``: rows strictly before second t."""
        first_same = self.first_at_or_after(t)
        first_after = self.first_at_or_after(t + 1)
        if row_id is None:
            return first_same
        return min(max(self._first_id_at_least(row_id), first_same), first_after)


@dataclass(frozen=True, slots=True)
class Cursor:
    time: int
    row_id: int | None = None


@dataclass(slots=True)
class KeysetPage:
    """One page of a keyset-paged merge: (timeline position, index) pairs in page order."""

    rows: list[tuple[int, int]]  # (lane position in the timelines list, index)
    has_more: bool
    keys_examined: int


def keyset_page(
    timelines: Sequence[Timeline],
    lo: int,
    hi: int,
    limit: int,
    descending: bool = True,
    cursor: Cursor | None = None,
) -> KeysetPage:
    """The next ``limit`` rows of the merged timelines inside [lo, hi], after ``cursor``.

    Order is (time, id) descending or ascending, a strict total order across timelines
    because ids never repeat. Cost is O(limit * log(len(timelines))) whatever the depth.
    """
    runs: list[Iterator[tuple[int, int, int, int]]] = []
    for pos, tl in enumerate(timelines):
        rng = tl.window(lo, hi)
        start, stop = rng.start, rng.stop
        if cursor is not None:
            if descending:
                stop = min(stop, tl.cursor_split_desc(cursor.time, cursor.row_id))
            else:
                start = max(start, tl.cursor_split(cursor.time, cursor.row_id))
        if start >= stop:
            continue
        runs.append(_run(tl, pos, start, stop, descending))
    examined = 0
    picked: list[tuple[int, int]] = []
    for key in islice(heapq.merge(*runs), limit + 1):
        examined += 1
        picked.append((key[2], key[3]))
    has_more = len(picked) > limit
    return KeysetPage(picked[:limit], has_more, examined)


def _run(tl: Timeline, pos: int, start: int, stop: int, descending: bool):
    """Lazily yield sortable keys of one timeline's rows (negated for descending order)."""
    if descending:
        for i in range(stop - 1, start - 1, -1):
            yield (-tl.time_of(i), -tl.id_of(i), pos, i)
    else:
        for i in range(start, stop):
            yield (tl.time_of(i), tl.id_of(i), pos, i)


def offset_page(tl: Timeline, lo: int, hi: int, offset: int, limit: int) -> tuple[list[int], int]:
    """Indexes of one page of a single timeline's window in descending time order, and the
    window's total row count. Pure arithmetic: offset 1,000,000 costs what offset 0 costs."""
    rng = tl.window(lo, hi)
    total = len(rng)
    first = rng.stop - 1 - offset
    last = max(rng.start - 1, first - limit)
    return list(range(first, last, -1)), total
