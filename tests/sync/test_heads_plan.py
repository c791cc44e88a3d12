"""The head checks' decisions and the incremental mode, as pure functions (the sandbox-backed
behaviour is in test_head_checks.py)."""

from __future__ import annotations

import msgspec

from sync.coverage import extended_to, incremental_mode
from sync.cursors import KeysetTimeCursor
from sync.heads import DAY, NewDay, NewestInWindow, PostsHead

NOW = 1_767_225_600  # a midnight


def _mode(partitions, *, lookback_at=NOW - 60, now=NOW, has_head=True):
    return incremental_mode(partitions, has_head=has_head, lookback_at=lookback_at, now=now,
                            lookback_interval=1800)


def test_the_incremental_mode_is_a_head_check_until_the_lookback_re_read_is_due():
    covered = {"a": {"coverage": [0, NOW - 60]}, "b": {"coverage": [0, NOW - 30]}}
    assert _mode(covered) == "head"
    assert _mode(covered, now=NOW - 60 + 1800) == "lookback"
    assert _mode(covered, lookback_at=None) == "lookback"  # never re-read yet
    assert _mode(covered, has_head=False) == "lookback"
    assert _mode({**covered, "c": {"coverage": None}}) == "lookback"  # a new partition
    assert _mode({**covered, "b": {"coverage": [0, 1], "incremental": {"lo": 0, "hi": 1}}}) == "resume"
    assert _mode({}) == "lookback"  # nothing to read: an empty pass


def test_an_idle_head_check_moves_every_partition_to_now_and_keeps_the_rest():
    partitions = {"a": {"coverage": [5, NOW - 60], "backfill": None}, "b": {"coverage": [7, NOW + 5]}}
    assert extended_to(partitions, NOW) == {
        "a": {"coverage": [5, NOW], "backfill": None}, "b": {"coverage": [7, NOW + 5]}}


def test_a_window_head_asks_for_one_row_after_the_coverage_end():
    head = NewestInWindow(KeysetTimeCursor())
    query = head.request(NOW - 60, NOW)
    assert query["limit"] == 1 and "type" not in query
    assert query["start_date"] < query["end_date"]
    # The upstream's clock has not moved: it still asks (the credential keeps being proven),
    # and a row at the covered second is not news.
    assert head.request(NOW, NOW)["start_date"] == head.request(NOW, NOW)["end_date"]
    row = msgspec.Raw(b'{"id": "1", "createdAt": "2026-01-01T00:00:00+00:00"}')
    assert head.news({}, [row], NOW, NOW, None) == (False, None)
    assert head.news({}, [row], NOW - 1, NOW, None) == (True, None)
    assert head.news({}, [], NOW - 60, NOW, None) == (False, None)


def test_the_posts_head_sees_a_new_feed_post_or_changed_counters():
    head = PostsHead()
    counters = {"postsCount": 10, "archivedPostsCount": 2}
    old = [msgspec.Raw(f'{{"postedAtPrecise": "{NOW - 100}.000001"}}'.encode())]
    assert head.news({"counters": counters}, old, NOW - 60, NOW, counters) == (False, counters)
    new = [msgspec.Raw(f'{{"postedAtPrecise": "{NOW - 10}.000001"}}'.encode())]
    assert head.news({"counters": counters}, new, NOW - 60, NOW, counters)[0]
    archived = {"postsCount": 10, "archivedPostsCount": 3}  # straight into the archive
    assert head.news({"counters": archived}, old, NOW - 60, NOW, counters) == (True, archived)


def test_daily_rows_can_only_be_new_when_a_day_starts():
    head = NewDay()
    assert head.request(NOW - 60, NOW + 3600) is None
    assert head.news(None, [], NOW, NOW + DAY - 1, None) == (False, None)  # today's row is covered
    assert head.news(None, [], NOW - 60, NOW + 10, None) == (True, None)  # a new day began
