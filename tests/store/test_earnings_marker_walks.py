"""A client that pages the earnings feed the spec's way (``marker`` = the previous
``nextMarker``, nothing else) gets every row of the window once, from the store and live."""

from __future__ import annotations

from collections import Counter

import pytest

from app.paging import whole_groups
from app.store.earnings_feed import FEED_PAGE_SIZE

START, END = "2025-12-31 23:00:00", "2025-12-31 23:59:59"


@pytest.fixture
def busy(api_caller):
    """3,000 rows in the last ~86 seconds: dozens of rows share each second."""
    api_caller.sandbox.configure_account(api_caller.account_id, earnings=3000, history_days=0.001)
    api_caller.store.fill_earnings()
    return api_caller


def _walk_by_marker(api, **params) -> list[dict]:
    rows, body = [], api.ok("/v1/{account}/earnings", **params)
    while True:
        rows += body["data"]["list"]
        if not body["data"]["hasMore"]:
            return rows
        body = api.ok("/v1/{account}/earnings", **params, marker=body["data"]["nextMarker"])


def _expected(api, type_=None) -> list[str]:
    lane = "" if type_ is None else " AND type = %s"
    rows = api.db.execute(
        "SELECT id FROM earnings WHERE account_id = %s AND created_at >= %s AND created_at <= %s" + lane,
        (api.account_id, START + "+00", END + "+00", *([type_] if type_ else [])),
    )
    return sorted(r[0] for r in rows)


@pytest.mark.parametrize("source", ["store", "upstream"])
@pytest.mark.parametrize("type_", [None, "tips"])
def test_walking_by_next_marker_alone_returns_each_row_of_the_window_once(busy, source, type_):
    params = {"start_date": START, "end_date": END, **({"type": type_} if type_ else {})}
    if source == "upstream":
        params["fresh"] = "true"
    per_second = Counter(r[0] for r in busy.db.execute(
        "SELECT created_at FROM earnings WHERE account_id = %s" + ("" if type_ is None else " AND type = %s"),
        (busy.account_id, *([type_] if type_ else [])),
    ))
    assert max(per_second.values()) > FEED_PAGE_SIZE, "a second must hold more rows than a page"
    first = busy.ok("/v1/{account}/earnings", **params)
    assert first["_meta"]["_cache"]["source"] == source
    rows = _walk_by_marker(busy, **params)
    ids = [r["id"] for r in rows]
    assert len(ids) > 5 * FEED_PAGE_SIZE and len(ids) == len(set(ids))
    assert sorted(ids) == _expected(busy, type_)
    keys = [(r["createdAt"], int(r["id"])) for r in rows]
    assert keys == sorted(keys, reverse=True)


def test_store_and_upstream_pages_are_the_same_pages(busy):
    params = {"start_date": START, "end_date": END}
    stored, live = busy.ok("/v1/{account}/earnings", **params), busy.ok("/v1/{account}/earnings", **params, fresh="true")
    for _ in range(5):
        assert stored["data"] == live["data"]
        marker = stored["data"]["nextMarker"]
        stored = busy.ok("/v1/{account}/earnings", **params, marker=marker)
        live = busy.ok("/v1/{account}/earnings", **params, fresh="true", marker=marker)


def test_a_page_ends_before_a_split_second_or_takes_a_busy_second_whole():
    second = lambda row: row[0]  # noqa: E731
    # The 11th row shares the 10th's second: the page ends before that second.
    rows = [(9, "a"), (9, "b"), (8, "c")] + [(7, str(i)) for i in range(8)]
    assert whole_groups(rows, 10, second) == (rows[:3], None)
    # A whole page of one second: the caller must add the rest of that second.
    rows = [(7, str(i)) for i in range(11)]
    assert whole_groups(rows, 10, second) == (rows[:10], 7)
    # No split: the first ten rows.
    rows = [(9 - i, str(i)) for i in range(11)]
    assert whole_groups(rows, 10, second) == (rows[:10], None)
