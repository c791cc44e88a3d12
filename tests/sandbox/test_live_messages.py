"""Direct-message statistics over real HTTP: the end_date cursor, offset paging with query."""

from __future__ import annotations

import pytest

from tests.sandbox.live_helpers import error_of

ACCOUNT = 5102
ITEM_FIELDS = {"id", "date", "text", "sentCount", "viewedCount", "mediaCount", "isFree", "isTip"}


def walk_end_date_cursor(sandbox, limit: int, **params) -> list[dict]:
    """Page the way the spec says: pass the date of the previous page's last item."""
    rows: list[dict] = []
    cursor: dict = {}
    while True:
        body = sandbox.get(ACCOUNT, "/messages/stats", limit=limit, **params, **cursor).json()
        rows += body["items"]
        if not body["hasMore"]:
            return rows
        assert len(body["items"]) == limit
        cursor = {"end_date": body["items"][-1]["date"]}


def test_message_stats_have_the_documented_shape(sandbox):
    body = sandbox.get(ACCOUNT, "/messages/stats").json()
    assert set(body) == {"hasMore", "items"} and len(body["items"]) == 10 and body["hasMore"]
    for item in body["items"]:
        assert set(item) == ITEM_FIELDS
        assert item["date"].endswith("+00:00") and item["text"].startswith("<p>")
        assert 0 <= item["viewedCount"] <= item["sentCount"]
    assert sandbox.get(ACCOUNT, "/messages/stats").content == sandbox.get(ACCOUNT, "/messages/stats").content


def test_end_date_cursor_walks_every_message_once_newest_first(sandbox):
    small = walk_end_date_cursor(sandbox, 37, start_date="2025-06-01")
    large = walk_end_date_cursor(sandbox, 100, start_date="2025-06-01")
    ids = [m["id"] for m in small]
    assert ids == [m["id"] for m in large] and len(ids) == len(set(ids)) > 100
    dates = [m["date"] for m in small]
    assert dates == sorted(dates, reverse=True) and dates[-1] >= "2025-06-01"


def test_end_date_is_exclusive_and_a_bare_date_keeps_its_whole_day(sandbox):
    page = sandbox.get(ACCOUNT, "/messages/stats", limit=3).json()["items"]
    after = sandbox.get(ACCOUNT, "/messages/stats", limit=1, end_date=page[0]["date"]).json()["items"]
    assert after[0]["id"] == page[1]["id"]
    day = page[0]["date"][:10]
    assert sandbox.get(ACCOUNT, "/messages/stats", limit=1, end_date=day).json()["items"][0]["id"] == page[0]["id"]


def test_query_switches_to_offset_paging_over_matching_messages(sandbox):
    rows, offset = [], 0
    while True:
        body = sandbox.get(ACCOUNT, "/messages/stats", query="Video", limit=9, offset=offset).json()
        rows += body["items"]
        if not body["hasMore"]:
            break
        offset += 9
    assert len(rows) > 9 and len({m["id"] for m in rows}) == len(rows)
    assert all("video" in m["text"].lower() for m in rows)
    every = walk_end_date_cursor(sandbox, 100)
    assert [m["id"] for m in rows] == [m["id"] for m in every if "video" in m["text"].lower()]


def test_offset_is_ignored_without_query(sandbox):
    first = sandbox.get(ACCOUNT, "/messages/stats", limit=5).json()
    assert sandbox.get(ACCOUNT, "/messages/stats", limit=5, offset=5).json() == first


def test_new_messages_appear_as_the_clock_advances(sandbox):
    newest = sandbox.get(ACCOUNT, "/messages/stats", limit=1).json()["items"][0]
    sandbox.advance(2 * 86400)
    assert sandbox.get(ACCOUNT, "/messages/stats", limit=1).json()["items"][0]["id"] > newest["id"]


@pytest.mark.parametrize(
    ("params", "parameter"),
    [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"end_date": "yesterday"}, "end_date"),
     ({"start_date": "2025-13-01"}, "start_date"), ({"start_date": "2025-06-02", "end_date": "2025-06-01"}, "end_date"),
     ({"query": "x", "offset": -3}, "offset")],
)
def test_invalid_message_parameters_get_a_400_naming_them(sandbox, params, parameter):
    assert error_of(sandbox.get(ACCOUNT, "/messages/stats", **params)).startswith(parameter + ":")
