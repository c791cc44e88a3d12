"""The head checks' decisions, as pure functions (the sandbox-backed behaviour is in
test_head_checks.py; the incremental mode's table is in test_coverage.py)."""

from __future__ import annotations

import msgspec

from sync.cursors import KeysetTimeCursor
from sync.heads import DAY, NewDay, NewestInWindow, PostsHead

NOW = 1_767_225_600  # a midnight


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
