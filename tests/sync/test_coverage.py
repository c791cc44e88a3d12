"""The planner's rules (sync/coverage.py), one table each: pure functions, no database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sync.coverage import (
    coverage_end_of,
    covered_after_page,
    covered_after_pass,
    extended_to,
    incremental_mode,
    kinds_due,
    new_window,
    resource_coverage,
)
from sync.cursor_state import PartitionState, PassState

NOW = 1_000
COVERED = (100, 500)


def at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


# (case, coverage, kind, since, lookback, full_refresh, expected (lo, hi) or None)
NEW_WINDOW = [
    ("a lookback re-read starts the lookback before the coverage end", COVERED, "incremental", None, 50, False, (450, NOW)),
    ("new rows only start at the coverage end", COVERED, "incremental", None, 0, False, (500, NOW)),
    ("a first sync reads the recent past", None, "incremental", None, 50, False, (950, NOW)),
    ("a first sync without lookback reads everything", None, "incremental", None, 0, False, (None, NOW)),
    ("a full refresh reads everything", COVERED, "incremental", None, 0, True, (None, NOW)),
    ("a full refresh has nothing to backfill", COVERED, "backfill", None, 0, True, None),
    ("a backfill ends just before the coverage", COVERED, "backfill", None, 0, False, (0, 99)),
    ("a backfill since a date", COVERED, "backfill", at(50), 0, False, (50, 99)),
    ("a backfill the coverage already holds", COVERED, "backfill", at(100), 0, False, None),
    ("a backfill of a covered beginning", (0, 500), "backfill", None, 0, False, None),
    ("a backfill before any coverage reads up to now", None, "backfill", at(50), 0, False, (50, NOW)),
    ("a whole-history backfill before any coverage", None, "backfill", None, 0, False, (0, NOW)),
    ("a reconcile of the whole coverage", COVERED, "reconcile", None, 0, False, (100, 500)),
    ("a reconcile since a date inside the coverage", COVERED, "reconcile", at(300), 0, False, (300, 500)),
    ("a reconcile since before the coverage", COVERED, "reconcile", at(50), 0, False, (100, 500)),
    ("nothing to reconcile without coverage", None, "reconcile", None, 0, False, None),
]


@pytest.mark.parametrize(("coverage", "kind", "since", "lookback", "full_refresh", "expected"),
                         [case[1:] for case in NEW_WINDOW], ids=[case[0] for case in NEW_WINDOW])
def test_new_window(coverage, kind, since, lookback, full_refresh, expected):
    assert new_window(coverage, kind, since, NOW, lookback=lookback, full_refresh=full_refresh) == expected


# (case, coverage, kind, hi, oldest on the page, expected coverage)
AFTER_PAGE = [
    ("a backfill page joins every second newer than its oldest row", COVERED, "backfill", 99, 60, (61, 500)),
    ("a first backfill page starts the coverage", None, "backfill", NOW, 700, (701, NOW)),
    ("a backfill page never shrinks the coverage", COVERED, "backfill", 99, 200, COVERED),
    ("an empty backfill page changes nothing", COVERED, "backfill", 99, None, COVERED),
    ("an incremental page waits for its pass", COVERED, "incremental", NOW, 700, COVERED),
    ("a first incremental page claims nothing", None, "incremental", NOW, 700, None),
    ("a reconcile page changes nothing", COVERED, "reconcile", 500, 300, COVERED),
]


@pytest.mark.parametrize(("coverage", "kind", "hi", "oldest", "expected"),
                         [case[1:] for case in AFTER_PAGE], ids=[case[0] for case in AFTER_PAGE])
def test_covered_after_page(coverage, kind, hi, oldest, expected):
    assert covered_after_page(coverage, kind, hi, oldest) == expected


# (case, coverage, kind, lo, hi, expected coverage)
AFTER_PASS = [
    ("a first incremental pass covers its window", None, "incremental", 950, NOW, (950, NOW)),
    ("a first full read covers the beginning", None, "incremental", None, NOW, (0, NOW)),
    ("an incremental pass moves the end forward", COVERED, "incremental", 450, NOW, (100, NOW)),
    ("an incremental pass never moves the end back", COVERED, "incremental", 450, 400, COVERED),
    ("a backfill moves the start back to its since", COVERED, "backfill", 50, 99, (50, 500)),
    ("a backfill never moves the end", COVERED, "backfill", 50, NOW, (50, 500)),
    ("a backfill from the beginning", COVERED, "backfill", None, 99, (0, 500)),
    ("a first backfill covers its window", None, "backfill", 50, NOW, (50, NOW)),
    ("a reconcile leaves the coverage as it was", COVERED, "reconcile", 100, 500, COVERED),
    ("a reconcile claims nothing", None, "reconcile", 100, 500, None),
]


@pytest.mark.parametrize(("coverage", "kind", "lo", "hi", "expected"),
                         [case[1:] for case in AFTER_PASS], ids=[case[0] for case in AFTER_PASS])
def test_covered_after_pass(coverage, kind, lo, hi, expected):
    assert covered_after_pass(coverage, kind, lo, hi) == expected


IDLE = PartitionState(COVERED)
MID_PASS = PassState(0, 99, None)
# (case, partitions, incremental_due, backfill_since, reconcile_since, expected plan)
KINDS_DUE = [
    ("nothing asked, nothing pending", {"a": IDLE}, False, None, None, []),
    ("the head interval passed", {"a": IDLE}, True, None, None, [("incremental", None)]),
    ("a requested backfill", {"a": IDLE}, False, at(50), None, [("backfill", at(50))]),
    ("everything asked runs in order", {"a": IDLE}, True, at(50), at(60),
     [("incremental", None), ("backfill", at(50)), ("reconcile", at(60))]),
    ("an unfinished incremental pass resumes before it is due", {"a": PartitionState(COVERED, incremental=MID_PASS)},
     False, None, None, [("incremental", None)]),
    ("one partition's unfinished backfill", {"a": IDLE, "b": PartitionState(COVERED, backfill=MID_PASS)},
     False, None, None, [("backfill", None)]),
    ("a completed pass (null) is not pending", {"a": PartitionState(COVERED, incremental=None, reconcile=MID_PASS)},
     False, None, None, [("reconcile", None)]),
    ("no partitions", {}, True, None, None, [("incremental", None)]),
]


@pytest.mark.parametrize(("partitions", "incremental_due", "backfill_since", "reconcile_since", "expected"),
                         [case[1:] for case in KINDS_DUE], ids=[case[0] for case in KINDS_DUE])
def test_kinds_due(partitions, incremental_due, backfill_since, reconcile_since, expected):
    plan = kinds_due(partitions, incremental_due=incremental_due, backfill_since=backfill_since,
                     reconcile_since=reconcile_since)
    assert plan == expected


LOOKED_BACK = NOW - 60
COVERED_NOW = {"a": PartitionState((0, NOW - 60)), "b": PartitionState((0, NOW - 30))}
# (case, partitions, has_head, lookback_at, now, expected mode); the lookback interval is 1800
INCREMENTAL_MODE = [
    ("a head check between lookback re-reads", COVERED_NOW, True, LOOKED_BACK, NOW, "head"),
    ("the lookback re-read is due", COVERED_NOW, True, LOOKED_BACK, LOOKED_BACK + 1800, "lookback"),
    ("never re-read yet", COVERED_NOW, True, None, NOW, "lookback"),
    ("a resource without a head check", COVERED_NOW, False, LOOKED_BACK, NOW, "lookback"),
    ("a new partition", {**COVERED_NOW, "c": PartitionState()}, True, LOOKED_BACK, NOW, "lookback"),
    ("an unfinished incremental pass", {**COVERED_NOW, "b": PartitionState((0, 1), incremental=PassState(0, 1, None))},
     True, LOOKED_BACK, NOW, "resume"),
    ("nothing to read: an empty pass", {}, True, LOOKED_BACK, NOW, "lookback"),
]


@pytest.mark.parametrize(("partitions", "has_head", "lookback_at", "now", "expected"),
                         [case[1:] for case in INCREMENTAL_MODE], ids=[case[0] for case in INCREMENTAL_MODE])
def test_incremental_mode(partitions, has_head, lookback_at, now, expected):
    mode = incremental_mode(partitions, has_head=has_head, lookback_at=lookback_at, now=now,
                            lookback_interval=1800)
    assert mode == expected


def test_an_idle_head_check_moves_every_partition_to_now_and_keeps_the_rest():
    partitions = {"a": PartitionState((5, NOW - 60), backfill=None),
                  "b": PartitionState((7, NOW + 5), reconcile=MID_PASS)}
    assert extended_to(partitions, NOW) == {
        "a": PartitionState((5, NOW), backfill=None), "b": PartitionState((7, NOW + 5), reconcile=MID_PASS)}
    assert coverage_end_of(partitions) == NOW - 60


# (case, partitions, expected (start, end) of the resource)
RESOURCE_COVERAGE = [
    ("the range every partition covers", {"a": PartitionState((5, 900)), "b": PartitionState((7, 950))},
     (at(7), at(900))),
    ("a partition without coverage", {"a": PartitionState((5, 900)), "b": PartitionState()}, (None, None)),
    ("no partitions", {}, (None, None)),
]


@pytest.mark.parametrize(("partitions", "expected"), [case[1:] for case in RESOURCE_COVERAGE],
                         ids=[case[0] for case in RESOURCE_COVERAGE])
def test_resource_coverage(partitions, expected):
    assert resource_coverage(partitions) == expected
