"""GET /v1/{account_id}/notifications and POST .../notifications/{type}/read against the
sandbox: the from_id cursor, the type enumerations, mark-read's counters and its body rule."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fixtures.api import ApiCaller, error_of

LIST = "/v1/{account}/notifications"
READ = "/v1/{account}/notifications/{type}/read"
MARKABLE = ["subscribed", "purchases", "tip", "tags", "commented", "mentioned", "favorited",
            "message", "deactivated_media"]
ALL_CATEGORIES = {*MARKABLE, "paided_message", "system"}


def upstream_walk(api: ApiCaller, limit: int, **params) -> list[dict]:
    """Every notification, paged directly on the sandbox with its own from_id cursor."""
    rows, cursor = [], {}
    while True:
        body = api.upstream("/notifications", limit=limit, **params, **cursor)
        rows += body["list"]
        if not body["hasMore"]:
            return rows
        cursor = {"from_id": body["list"][-1]["id"]}


def test_default_page_is_the_newest_10(api_caller):
    body = api_caller.ok(LIST)
    assert body["data"] == api_caller.upstream("/notifications", limit=10)
    last_id = body["data"]["list"][-1]["id"]
    assert body["_pagination"]["next_page"] == f"/v1/{api_caller.account_id}/notifications?limit=10&from_id={last_id}"


def test_from_id_pages_followed_to_the_last_give_every_notification_once(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, notifications=450)
    rows, pages = api_caller.walk(LIST, "list", limit=47)
    ids = [row["id"] for row in rows]
    assert rows == upstream_walk(api_caller, 100)
    assert len(ids) == len(set(ids)) > 400 and ids == sorted(ids, reverse=True)
    assert "_pagination" not in pages[-1] and pages[-1]["data"]["hasMore"] is False


def test_type_filter_is_kept_on_every_page(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, notifications=450)
    rows, pages = api_caller.walk(LIST, "list", limit=5, type="tip")
    assert rows and all(row["type"] == "tip" for row in rows)
    assert rows == upstream_walk(api_caller, 100, type="tip")
    for page in pages[:-1]:
        query = parse_qs(urlsplit(page["_pagination"]["next_page"]).query)
        assert query == {"limit": ["5"], "type": ["tip"], "from_id": [str(page["data"]["list"][-1]["id"])]}


@pytest.mark.parametrize(
    ("params", "named"),
    [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"type": "all"}, "type"),
     ({"type": "likes"}, "type"), ({"from_id": 0}, "from_id"), ({"from_id": "last"}, "from_id")],
)
def test_notifications_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, LIST, **params)


def test_mark_read_returns_the_counters_and_reads_the_category(api_caller):
    unread_tips = [n for n in upstream_walk(api_caller, 100, type="tip") if not n["isRead"]]
    assert unread_tips  # the sandbox keeps some unread
    response = api_caller.post(READ.replace("{type}", "tip"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["_meta"]["_credits"]["used"] == 1 and "_pagination" not in body
    data = body["data"]
    assert set(data) == {"counters", "hasSystemNotifications", "success"} and data["success"] is True
    assert set(data["counters"]) == ALL_CATEGORIES and data["counters"]["tip"] == 0
    assert all(n["isRead"] for n in api_caller.walk(LIST, "list", limit=100, type="tip")[0])


@pytest.mark.parametrize("category", MARKABLE)
def test_every_markable_category_is_accepted(api_caller, category):
    response = api_caller.post(READ.replace("{type}", category))
    assert response.status_code == 200, response.text
    assert response.json()["data"]["counters"][category] == 0


@pytest.mark.parametrize("category", ["all", "system", "paided_message", "tips"])
def test_mark_read_refuses_a_type_outside_its_list(api_caller, category):
    assert "type" in error_of(api_caller.post(READ.replace("{type}", category)), 400, credits=1)


def test_mark_read_ignores_a_small_body_and_refuses_one_over_the_limit(api_caller, api_settings):
    small = api_caller.post(READ.replace("{type}", "tags"), content=b"{}")
    assert small.status_code == 200, small.text
    too_big = api_caller.post(READ.replace("{type}", "tags"), content=b"x" * (api_settings.max_body_bytes + 1))
    assert str(api_settings.max_body_bytes) in error_of(too_big, 413, credits=1)
