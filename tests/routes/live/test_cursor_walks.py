"""A client that pages the live cursors the spec's way never loses a row (issue 17).

Each walk uses only the spec's documented parameters, rebuilt from the previous response's
documented fields: direct messages pass the last item's ``date`` as ``end_date``,
notifications the last item's ``id`` as ``from_id``. The data is dense (the sandbox's
``ties`` knob: ~35 rows in every second, more than a page), and the rows walked are checked
against the sandbox's ground truth: every row of the window, each once.
"""

from __future__ import annotations

from collections import Counter

import pytest

from sandbox.core.checksum import checksum
from tests.fixtures.api import ApiCaller

#: ~35 messages and notifications in each of the epoch's last 43 seconds.
DENSE = {"history_days": 0.0005, "ties": True, "direct_messages": 1500, "notifications": 1500}
START, END = "2025-12-31 23:59:00", "2026-01-01 00:00:00"  # direct messages: [START, END)


@pytest.fixture
def dense(api_caller, sandbox) -> ApiCaller:
    sandbox.configure_account(api_caller.account_id, **DENSE)
    return api_caller


def _walk(api: ApiCaller, path: str, member: str, params: dict, cursor) -> list[dict]:
    """Page by hand: the first page with ``params``, each next one with ``cursor(rows)``
    (the spec's cursor from the previous page's last row) in place of the old one."""
    rows: list[dict] = []
    while True:
        data = api.ok(path, **params)["data"]
        rows += data[member]
        if not data["hasMore"]:
            return rows
        params = {**params, **cursor(data[member])}
        assert len(rows) < 10_000, "paging does not end"


def _exactly_once(rows: list[dict], truth: dict) -> None:
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)), "a row came twice"
    assert checksum(str(i) for i in ids) == {"count": truth["count"], "checksum": truth["checksum"]}


# --- direct messages: end_date -------------------------------------------------------------


def _walk_messages(api: ApiCaller, limit: int) -> list[dict]:
    return _walk(
        api, "/v1/{account}/direct-messages", "items",
        {"start_date": START, "end_date": END, "limit": limit},
        lambda items: {"end_date": items[-1]["date"]},
    )


@pytest.mark.parametrize("limit", [10, 50, 100])
def test_walking_direct_messages_by_end_date_returns_each_message_of_the_window_once(dense, sandbox, limit):
    rows = _walk_messages(dense, limit)
    truth = sandbox.truth(dense.account_id, "direct_messages", start=START, end="2025-12-31 23:59:59")
    per_second = Counter(row["date"] for row in rows)
    assert truth["count"] > 1000 and max(per_second.values()) > 10, "seconds must hold more rows than a page"
    _exactly_once(rows, truth)
    dates = [row["date"] for row in rows]
    assert dates == sorted(dates, reverse=True)


def test_a_page_of_messages_ends_between_seconds_or_holds_one_second_whole(dense):
    params = {"start_date": START, "end_date": END}
    one_second = dense.ok("/v1/{account}/direct-messages", **params, limit=10)
    items = one_second["data"]["items"]
    assert len(items) > 10 and len({m["date"] for m in items}) == 1
    url = one_second["_pagination"]["next_page"]
    assert "limit=10" in url and "end_date=" + items[-1]["date"].replace(":", "%3A").replace("+", "%2B") in url
    trimmed = dense.ok("/v1/{account}/direct-messages", **params, limit=50)["data"]["items"]
    assert len(trimmed) < 50 and len({m["date"] for m in trimmed}) == 1
    assert [m["id"] for m in trimmed] == [m["id"] for m in items]


def test_the_upstreams_own_end_date_cursor_loses_messages_on_this_data(dense, sandbox):
    """Why the route trims its pages: the upstream's pages end inside busy seconds."""
    rows, params = [], {"start_date": START, "end_date": END, "limit": 10}
    while True:
        body = sandbox.get(dense.account_id, "/messages/stats", **params).json()
        rows += body["items"]
        if not body["hasMore"]:
            break
        params["end_date"] = body["items"][-1]["date"]
    truth = sandbox.truth(dense.account_id, "direct_messages", start=START, end="2025-12-31 23:59:59")
    assert len(rows) < truth["count"]


# --- notifications: from_id ----------------------------------------------------------------


@pytest.mark.parametrize("limit", [10, 100])
@pytest.mark.parametrize("type_", [None, "favorited"])
def test_walking_notifications_by_from_id_returns_each_notification_once(dense, sandbox, limit, type_):
    params = {"limit": limit, **({"type": type_} if type_ else {})}
    rows = _walk(dense, "/v1/{account}/notifications", "list", params, lambda items: {"from_id": items[-1]["id"]})
    truth = sandbox.truth(dense.account_id, "notifications", end=END, **({"type": type_} if type_ else {}))
    assert max(Counter(row["createdAt"] for row in rows).values()) > (10 if type_ is None else 1)
    _exactly_once(rows, truth)
    assert truth["count"] > (1000 if type_ is None else 100)
    ids = [row["id"] for row in rows]
    assert ids == sorted(ids, reverse=True)
