"""``app.paging``: pages that never split a group, over an in-memory feed with the upstream's
flaw (strictly beyond a value, at most ``max_ask`` rows a request). The walks over real HTTP
are in tests/routes/live/test_cursor_walks.py and tests/store/test_posts_cursor_walks.py."""

from __future__ import annotations

import asyncio
import logging

import pytest

from app.paging import whole_groups, whole_live_page


def _feed(values: list[int], max_ask: int = 5):
    """Rows (value, n) newest first; ``fetch`` answers like the flawed upstream cursors."""
    rows = sorted(((v, n) for n, v in enumerate(values)), reverse=True)

    def walk(limit: int) -> list[tuple[int, int]]:
        out, cursor = [], None
        while True:
            async def fetch(ask: int, through: int | None = None, cursor=cursor):
                assert ask <= max_ask
                bound = through + 1 if through is not None else cursor
                left = [r for r in rows if bound is None or r[0] < bound]
                return left[:ask], len(left) > ask

            page, more = asyncio.run(whole_live_page(fetch, limit, lambda r: r[0], max_ask=max_ask))
            out += page
            if not more:
                return out
            cursor = page[-1][0]  # the spec's cursor: the last row's value alone

    return rows, walk


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5])
def test_every_row_once_whatever_the_page_size(limit):
    values = [9, 9, 8, 8, 8, 8, 7, 6, 6, 6, 5, 5, 5, 5, 5, 4, 3, 3]  # groups of 1 to 5
    rows, walk = _feed(values)
    assert walk(limit) == rows


def test_a_group_larger_than_one_request_is_logged(caplog):
    rows, walk = _feed([5] * 7 + [4, 3])
    with caplog.at_level(logging.WARNING, logger="app.paging"):
        walked = walk(2)
    assert len(walked) < len(rows) and "cannot be paged to" in caplog.text


def test_whole_groups_trims_or_flags():
    key = lambda r: r[0]  # noqa: E731
    assert whole_groups([(9, 0), (8, 1), (8, 2)], 2, key) == ([(9, 0)], None)
    assert whole_groups([(8, 1), (8, 2), (8, 3)], 2, key) == ([(8, 1), (8, 2)], 8)
    assert whole_groups([(9, 0), (8, 1), (7, 2)], 2, key) == ([(9, 0), (8, 1)], None)
    assert whole_groups([(9, 0)], 2, key) == ([(9, 0)], None)
