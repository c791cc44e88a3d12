"""GET /v1/{account_id}/direct-messages against the sandbox: the end_date cursor, offset
paging when ``query`` is set, the default window, and 400s."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fixtures.api import ApiCaller

DMS = "/v1/{account}/direct-messages"
#: Two years before the pinned clock (2026-01-01T00:00:00Z), and the end of that day
#: (sent upstream as the next day's first second: the upstream's end_date is exclusive).
DEFAULT_START = "2024-01-01 00:00:00"
DEFAULT_END = "2026-01-02 00:00:00"


def upstream_walk(api: ApiCaller, limit: int, **params) -> list[dict]:
    """Every message, paged directly on the sandbox with its own end_date cursor."""
    rows, cursor = [], {}
    while True:
        body = api.upstream("/messages/stats", limit=limit, **params, **cursor)
        rows += body["items"]
        if not body["hasMore"]:
            return rows
        cursor = {"end_date": body["items"][-1]["date"]}


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_default_page_is_the_upstreams_with_the_default_window(api_caller):
    body = api_caller.ok(DMS)
    expected = api_caller.upstream("/messages/stats", limit=10, start_date=DEFAULT_START, end_date=DEFAULT_END)
    assert body["data"] == expected
    assert set(body["data"]) == {"hasMore", "items"} and len(body["data"]["items"]) == 10


def test_default_start_is_two_years_ago(api_caller, sandbox):
    # A history longer than two years: the default window must cut it at 2024-01-01.
    sandbox.configure_account(api_caller.account_id, history_days=1000, direct_messages=150)
    rows, _ = api_caller.walk(DMS, "items", limit=100)
    assert rows == upstream_walk(api_caller, 100, start_date=DEFAULT_START)
    assert min(m["date"] for m in rows) >= "2024-01-01T00:00:00+00:00"
    older = upstream_walk(api_caller, 100, start_date="2023-01-01")
    assert len(older) > len(rows)


def test_default_end_is_the_end_of_today_not_now(api_caller, sandbox):
    # Our clock stays at 00:00 while the upstream's moves to 23:00 the same day: messages
    # sent since our "now" are still inside "the end of today".
    sandbox.configure_account(api_caller.account_id, direct_messages=3650)
    sandbox.advance(23 * 3600)
    newest = api_caller.ok(DMS, limit=100)["data"]["items"]
    assert newest[0]["date"] > "2026-01-01T00:00:00+00:00"
    assert newest == api_caller.upstream("/messages/stats", limit=100)["items"]


def test_end_date_cursor_followed_to_the_last_page_gives_every_message_once(api_caller):
    rows, pages = api_caller.walk(DMS, "items", limit=37, start_date="2025-06-01")
    assert rows == upstream_walk(api_caller, 100, start_date="2025-06-01")
    ids = [m["id"] for m in rows]
    assert len(ids) == len(set(ids)) > 37
    assert "_pagination" not in pages[-1] and pages[-1]["data"]["hasMore"] is False
    for page in pages[:-1]:
        url = page["_pagination"]["next_page"]
        last = page["data"]["items"][-1]["date"]
        # limit and end_date (the last item's date, URL-encoded), plus the caller's start_date.
        assert query_of(url) == {"limit": ["37"], "end_date": [last], "start_date": ["2025-06-01"]}
        assert "%2B00%3A00" in url and "+" not in url


def test_query_switches_to_offset_paging(api_caller):
    rows, pages = api_caller.walk(DMS, "items", limit=4, query="video")
    matching = api_caller.upstream("/messages/stats", limit=100, query="video", start_date=DEFAULT_START)
    assert not matching["hasMore"]
    assert rows == matching["items"] and len(rows) > 4
    assert all("video" in m["text"].lower() for m in rows)
    for number, page in enumerate(pages[:-1], start=1):
        assert query_of(page["_pagination"]["next_page"]) == {
            "limit": ["4"], "query": ["video"], "offset": [str(4 * number)]
        }


def test_offset_is_ignored_without_query(api_caller):
    assert api_caller.ok(DMS, limit=5, offset=5)["data"] == api_caller.ok(DMS, limit=5)["data"]


def test_dates_accept_both_forms_and_a_t_is_the_same_as_a_space(api_caller):
    spaced = api_caller.ok(DMS, start_date="2025-03-01 00:00:00", end_date="2025-04-01 12:00:00")
    iso = api_caller.ok(DMS, start_date="2025-03-01T00:00:00Z", end_date="2025-04-01T12:00:00+00:00")
    assert spaced["data"] == iso["data"]
    expected = api_caller.upstream("/messages/stats", start_date="2025-03-01 00:00:00", end_date="2025-04-01 12:00:00")
    assert spaced["data"] == expected


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"start_date": "2025-13-01"}, "start_date"),
        ({"end_date": "yesterday"}, "end_date"),
        ({"start_date": "2025-06-02", "end_date": "2025-06-01"}, "end_date"),
        ({"query": "x", "offset": -3}, "offset"),
        ({"offset": "abc"}, "offset"),
    ],
)
def test_direct_messages_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, DMS, **params)
