"""GET /v1/{account_id}/chats and /lists against the sandbox: shape, defaults, 400s, paging."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

CHATS = "/v1/{account}/chats"
LISTS = "/v1/{account}/lists"


def next_query(body: dict) -> dict[str, list[str]]:
    return parse_qs(urlsplit(body["_pagination"]["next_page"]).query)


def test_chats_pass_the_upstream_page_through_with_the_spec_defaults(api_caller):
    body = api_caller.ok(CHATS)
    assert set(body) == {"data", "_pagination", "_meta"}
    assert set(body["_meta"]) == {"_credits", "_rate_limits"}
    # Defaults: limit 10, offset 0, skip_users=all (no user objects), order=recent.
    expected = api_caller.upstream("/chats", limit=10, offset=0, skip_users="all", order="recent")
    assert body["data"] == expected
    assert len(body["data"]["list"]) == 10
    assert all("withUser" not in chat for chat in body["data"]["list"])
    assert body["_pagination"]["next_page"] == f"/v1/{api_caller.account_id}/chats?limit=10&offset=10"


def test_chats_pass_every_parameter_upstream(api_caller):
    params = {"limit": 5, "offset": 3, "skip_users": "none", "order": "old", "filter": "unread"}
    assert api_caller.ok(CHATS, **params)["data"] == api_caller.upstream("/chats", **params)
    lists = api_caller.upstream("/chats/lists", limit=100)["list"]
    by_list = api_caller.ok(CHATS, list_id=lists[0]["id"], limit=100)["data"]
    assert by_list == api_caller.upstream("/chats", list_id=lists[0]["id"], limit=100)
    fan = api_caller.ok(CHATS, skip_users="none", limit=1)["data"]["list"][0]["withUser"]["username"]
    found = api_caller.ok(CHATS, query=fan.upper(), skip_users="none")["data"]["list"]
    assert fan in [chat["withUser"]["username"] for chat in found]
    assert found == api_caller.upstream("/chats", query=fan.upper(), skip_users="none")["list"]


@pytest.mark.parametrize("order", ["recent", "old"])
def test_chat_pages_followed_to_the_last_give_every_chat_once(api_caller, order):
    rows, pages = api_caller.walk(CHATS, "list", limit=7, order=order, skip_users="none")
    everything = api_caller.upstream("/chats", limit=100, order=order, skip_users="none")
    assert not everything["hasMore"]
    assert rows == everything["list"]  # same rows, same order: no duplicate, no gap
    assert len(pages) == -(-len(rows) // 7)
    assert "_pagination" not in pages[-1] and pages[-1]["data"]["hasMore"] is False
    for page in pages[:-1]:
        query = next_query(page)
        assert query["order"] == [order] and query["skip_users"] == ["none"]  # filters kept


def test_filtered_chat_pages_keep_the_filter(api_caller):
    rows, _ = api_caller.walk(CHATS, "list", limit=3, filter="unread")
    assert rows == api_caller.upstream("/chats", limit=100, filter="unread")["list"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"skip_users": "some"}, "skip_users"),
        ({"order": "newest"}, "order"),
        ({"filter": "starred"}, "filter"),
        ({"list_id": "abc"}, "list_id"),
        ({"list_id": 0}, "list_id"),
    ],
)
def test_chats_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert repr(named) in api_caller.error(400, CHATS, **params)


def test_filter_and_list_id_are_mutually_exclusive(api_caller):
    list_id = api_caller.upstream("/chats/lists")["list"][0]["id"]
    message = api_caller.error(400, CHATS, filter="unread", list_id=list_id)
    assert "filter" in message and "list_id" in message


def test_unknown_list_id_is_the_upstreams_400_naming_list_id(api_caller):
    assert "list_id" in api_caller.error(400, CHATS, list_id=999_999_999)


def test_chat_lists_default_page_and_paging_to_the_last_page(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, chat_lists=23)
    body = api_caller.ok(LISTS)
    assert body["data"] == api_caller.upstream("/chats/lists", limit=10, offset=0)
    assert body["_pagination"]["next_page"] == f"/v1/{api_caller.account_id}/lists?limit=10&offset=10"
    rows, pages = api_caller.walk(LISTS, "list", limit=5)
    assert rows == api_caller.upstream("/chats/lists", limit=100)["list"] and len(rows) == 23
    assert len(pages) == 5 and "_pagination" not in pages[-1]


@pytest.mark.parametrize(("params", "named"), [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"offset": -5}, "offset")])
def test_chat_lists_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert repr(named) in api_caller.error(400, LISTS, **params)
