"""Coverage planning (pure): which window each pass reads, and what the store then covers.

A partition's coverage is ``[start, end]`` (unix seconds, both inclusive): every row of that
range is stored. Per partition, ``sync_state.cursor`` holds it and any unfinished pass of
each kind (``sync.cursor_state``: ``CursorState``, ``PartitionState``, ``PassState``):

- ``incremental``: ``[coverage_end - lookback, now]`` (the whole history for full-refresh
  resources; the recent past only on a first sync);
- ``backfill``: ``[since, coverage_start)``, growing the coverage page by page;
- ``reconcile``: ``[since, coverage_end]``, a re-read that leaves the coverage as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec

from sync.cursor_state import Coverage, Kind, PartitionState
from sync.cursors import BEGINNING, Position

if TYPE_CHECKING:  # resources imports the planning's users; the planning needs only the name
    from sync.resources import Partition

Partitions = Mapping[str, PartitionState[Any]]


@dataclass
class PartitionPass:
    """One pass of one partition over ``[lo, hi]``; ``position`` is the next page to fetch
    (fetch side; the committed one is in the state)."""

    partition: Partition
    lo: int | None
    hi: int
    position: Position


def kinds_due(
    partitions: Partitions,
    *,
    incremental_due: bool,
    backfill_since: datetime | None,
    reconcile_since: datetime | None,
) -> list[tuple[Kind, datetime | None]]:
    """The kinds of work to run now, in order, with their ``since``: what the task row asks
    for, and any pass a previous holder left unfinished in the state."""
    pending = set().union(*(part.pending() for part in partitions.values()))
    plan: list[tuple[Kind, datetime | None]] = []
    if incremental_due or "incremental" in pending:
        plan.append(("incremental", None))
    if backfill_since is not None or "backfill" in pending:
        plan.append(("backfill", backfill_since))
    if reconcile_since is not None or "reconcile" in pending:
        plan.append(("reconcile", reconcile_since))
    return plan


def incremental_mode(
    partitions: Partitions, *, has_head: bool, lookback_at: int | None, now: int,
    lookback_interval: int,
) -> str:
    """What an incremental run does now (see docs/sync.md, "Cadences"):

    - ``resume``: finish the passes a previous holder left unfinished;
    - ``lookback``: read every partition over ``[coverage_end - lookback, now]`` (a first
      sync, a partition without coverage, a resource without a head check, or the lookback
      re-read is due: ``lookback_interval`` upstream seconds since the last one began);
    - ``head``: ask the head check; the partitions are read (new rows only) when it sees news.
    """
    if any(part.pass_of("incremental") is not None for part in partitions.values()):
        return "resume"
    if (not has_head or not partitions or lookback_at is None
            or now >= lookback_at + lookback_interval
            or any(part.coverage is None for part in partitions.values())):
        return "lookback"
    return "head"


def coverage_end_of(partitions: Partitions) -> int:
    """The resource's coverage end in unix seconds (every partition has a coverage)."""
    return min(_covered(part)[1] for part in partitions.values())


def extended_to(partitions: Partitions, now: int) -> dict[str, PartitionState[Any]]:
    """The partitions with their coverage ending at ``now``: what a head check that saw
    nothing new after the coverage end may claim (every row up to ``now`` is stored)."""
    return {name: _extended(part, now) for name, part in partitions.items()}


def _extended(part: PartitionState[Any], now: int) -> PartitionState[Any]:
    start, end = _covered(part)
    return msgspec.structs.replace(part, coverage=(start, max(end, now)))


def _covered(part: PartitionState[Any]) -> Coverage:
    if part.coverage is None:
        raise ValueError("a partition without coverage has no coverage end")
    return part.coverage


def new_window(
    coverage: Coverage | None,
    kind: Kind,
    since: datetime | None,
    now: int,
    *,
    lookback: int,
    full_refresh: bool,
) -> tuple[int | None, int] | None:
    """``(lo, hi)`` of a new pass of ``kind`` over a partition with ``coverage``; None when
    there is nothing to read."""
    if kind == "incremental":
        if full_refresh:
            return None, now
        if coverage is not None:
            return coverage[1] - lookback, now
        # A first sync: the recent past only; older history is a backfill's job.
        return (now - lookback if lookback else None), now
    if kind == "backfill":
        if full_refresh:
            return None  # every incremental pass reads the whole history already
        target = BEGINNING if since is None else seconds(since)
        if coverage is not None and coverage[0] <= target:
            return None
        return target, coverage[0] - 1 if coverage is not None else now
    if coverage is None:
        return None
    return (coverage[0] if since is None else max(coverage[0], seconds(since))), coverage[1]


def covered_after_page(coverage: Coverage | None, kind: Kind, hi: int, oldest: int | None) -> Coverage | None:
    """Coverage after one page of a pass. Only a backfill grows it page by page: its pass
    ends where the coverage starts, so "every row newer than the page's oldest" joins it."""
    if kind != "backfill" or oldest is None:
        return coverage
    start = oldest + 1
    if coverage is None:
        return start, hi
    return min(coverage[0], start), coverage[1]


def covered_after_pass(coverage: Coverage | None, kind: Kind, lo: int | None, hi: int) -> Coverage | None:
    """Coverage once a pass over [lo, hi] completed (lo None: from the beginning)."""
    start = BEGINNING if lo is None else lo
    if kind == "reconcile":
        return coverage
    if coverage is None:
        return start, hi
    end = max(coverage[1], hi) if kind == "incremental" else coverage[1]
    return min(coverage[0], start), end


def resource_coverage(partitions: Partitions) -> tuple[datetime | None, datetime | None]:
    """The resource's coverage: the range every partition covers (None if any has none)."""
    spans = [p.coverage for p in partitions.values()]
    if not spans or any(s is None for s in spans):
        return None, None
    covered = [s for s in spans if s is not None]
    return moment(max(s[0] for s in covered)), moment(min(s[1] for s in covered))


def moment(unix: int) -> datetime:
    return datetime.fromtimestamp(unix, UTC)


def seconds(value: datetime) -> int:
    return int(value.timestamp())
