"""Notifications and mark-read over real HTTP: from_id paging, categories, arrival, read state."""

from __future__ import annotations

import pytest

from tests.sandbox.live_helpers import error_of

ACCOUNT = 5105
CATEGORIES = ("subscribed", "paided_message", "purchases", "tip", "tags", "commented", "mentioned",
              "favorited", "message", "system", "deactivated_media")


def walk_from_id(sandbox, limit: int, account_id: int = ACCOUNT, **params) -> list[dict]:
    rows: list[dict] = []
    cursor: dict = {}
    while True:
        body = sandbox.get(account_id, "/notifications", limit=limit, **params, **cursor).json()
        assert set(body) == {"list", "hasMore"}
        rows += body["list"]
        if not body["hasMore"]:
            return rows
        assert len(body["list"]) == limit
        cursor = {"from_id": body["list"][-1]["id"]}


def mark_read(sandbox, category: str, account_id: int = ACCOUNT):
    return sandbox.control.post(f"/api/accounts/{account_id}/notifications/{category}/read",
                                headers=sandbox.headers(account_id))


def test_notifications_have_the_documented_shape_newest_first(sandbox):
    items = sandbox.get(ACCOUNT, "/notifications", limit=100).json()["list"]
    assert len(items) == 100
    for item in items:
        assert {"id", "type", "createdAt", "isRead"} <= set(item) and item["type"] in CATEGORIES
        assert item["createdAt"].endswith("+00:00")
    ids = [item["id"] for item in items]
    assert ids == sorted(ids, reverse=True)
    assert sandbox.get(ACCOUNT, "/notifications").content == sandbox.get(ACCOUNT, "/notifications").content


def test_from_id_walks_every_notification_once(sandbox):
    sandbox.configure_account(ACCOUNT, history_days=30)
    rows = walk_from_id(sandbox, 47)
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)) > 300 and ids == sorted(ids, reverse=True)
    assert [row["id"] for row in walk_from_id(sandbox, 100)] == ids


@pytest.mark.parametrize("category", ["tip", "system", "favorited"])
def test_type_selects_one_category_across_pages(sandbox, category):
    sandbox.configure_account(ACCOUNT, history_days=60)
    rows = walk_from_id(sandbox, 10, type=category)
    assert rows and all(row["type"] == category for row in rows)
    every = walk_from_id(sandbox, 100)
    assert [r["id"] for r in rows] == [r["id"] for r in every if r["type"] == category]


def test_new_notifications_appear_unread_as_the_clock_advances(sandbox):
    newest = sandbox.get(ACCOUNT, "/notifications", limit=1).json()["list"][0]
    sandbox.advance(6 * 3600)
    fresh = [n for n in sandbox.get(ACCOUNT, "/notifications", limit=100).json()["list"] if n["id"] > newest["id"]]
    assert len(fresh) >= 2 and not any(n["isRead"] for n in fresh)
    assert all(n["createdAt"] > newest["createdAt"] for n in fresh)


def test_mark_read_flips_its_category_and_its_counter_only(sandbox):
    sandbox.advance(3 * 86400)  # unread arrivals in every busy category
    response = mark_read(sandbox, "message")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"counters", "hasSystemNotifications", "success"} and body["success"] is True
    assert set(body["counters"]) == set(CATEGORIES) and body["counters"]["message"] == 0
    unread_favorites = body["counters"]["favorited"]
    assert unread_favorites > 0
    messages = walk_from_id(sandbox, 100, type="message")
    assert messages and all(n["isRead"] for n in messages)

    again = mark_read(sandbox, "favorited").json()["counters"]
    assert again["favorited"] == 0 and again["subscribed"] == body["counters"]["subscribed"]


def test_notifications_arriving_after_mark_read_are_unread_and_reset_forgets_marks(sandbox):
    mark_read(sandbox, "favorited")
    sandbox.advance(4 * 86400)
    counters = mark_read(sandbox, "subscribed").json()["counters"]
    assert counters["favorited"] > 0  # arrived after the mark
    sandbox.reset()
    fresh = mark_read(sandbox, "tip").json()["counters"]
    assert fresh["subscribed"] > 0  # the reset cleared the earlier marks


@pytest.mark.parametrize("category", ["all", "system", "paided_message", "likes"])
def test_mark_read_refuses_categories_outside_its_list(sandbox, category):
    assert error_of(mark_read(sandbox, category)).startswith("type:")


@pytest.mark.parametrize(
    ("params", "parameter"),
    [({"type": "all"}, "type"), ({"type": "likes"}, "type"), ({"limit": 0}, "limit"), ({"limit": 101}, "limit"),
     ({"from_id": "x"}, "from_id"), ({"from_id": 0}, "from_id")],
)
def test_invalid_notification_parameters_get_a_400_naming_them(sandbox, params, parameter):
    assert error_of(sandbox.get(ACCOUNT, "/notifications", **params)).startswith(parameter + ":")
