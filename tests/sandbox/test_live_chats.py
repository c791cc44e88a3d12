"""Chats and chat lists over real HTTP: shapes, order, paging, filters and 400s."""

from __future__ import annotations

import pytest

from tests.sandbox.live_helpers import error_of, walk_offset_pages

ACCOUNT = 5101
CHAT_FIELDS = {"lastMessage", "canSendMessage", "canGoToProfile", "unreadMessagesCount", "lastReadMessageId",
               "hasUnreadTips", "isMutedNotifications", "hasPurchasedFeed", "countPinnedMessages"}
MESSAGE_FIELDS = {"id", "text", "isFree", "createdAt", "mediaCount", "isTip", "isOpened", "giphyId", "lockedText"}


def message_ids(chats: list[dict]) -> list[int]:
    return [c["lastMessage"]["id"] for c in chats]


def test_chats_omit_user_objects_by_default_and_include_them_with_skip_users_none(sandbox):
    default = sandbox.get(ACCOUNT, "/chats").json()
    assert set(default) == {"list", "hasMore"} and len(default["list"]) == 10
    for chat in default["list"]:
        assert set(chat) == CHAT_FIELDS and set(chat["lastMessage"]) == MESSAGE_FIELDS
    with_users = sandbox.get(ACCOUNT, "/chats", skip_users="none").json()["list"]
    for chat in with_users:
        assert set(chat) == CHAT_FIELDS | {"withUser"}
        assert set(chat["withUser"]) == {"id", "_view", "username", "name"}
        assert set(chat["lastMessage"]) == MESSAGE_FIELDS | {"fromUser"}
        assert set(chat["lastMessage"]["fromUser"]) == {"id", "_view"}
        assert chat["lastMessage"]["fromUser"]["id"] in (chat["withUser"]["id"], ACCOUNT)
        assert chat["lastMessage"]["createdAt"].endswith("+00:00") and "<p>" in chat["lastMessage"]["text"]
    assert message_ids(with_users) == message_ids(default["list"])


def test_the_same_chats_request_gives_the_same_body(sandbox):
    first = sandbox.get(ACCOUNT, "/chats", limit=25, skip_users="none", filter="unread")
    assert first.content == sandbox.get(ACCOUNT, "/chats", limit=25, skip_users="none", filter="unread").content


@pytest.mark.parametrize("order", ["recent", "old"])
def test_chat_pages_walk_every_chat_once_in_last_message_order(sandbox, order):
    rows = walk_offset_pages(sandbox, ACCOUNT, "/chats", 7, order=order)
    assert len(rows) == len(set(message_ids(rows))) > 7
    times = [c["lastMessage"]["createdAt"] for c in rows]
    assert times == sorted(times, reverse=order == "recent")
    assert message_ids(rows) == message_ids(sandbox.get(ACCOUNT, "/chats", limit=100, order=order).json()["list"])


def test_chat_filters_keep_only_matching_chats(sandbox):
    everything = sandbox.get(ACCOUNT, "/chats", limit=100).json()["list"]
    unread = sandbox.get(ACCOUNT, "/chats", limit=100, filter="unread").json()["list"]
    assert unread and all(c["unreadMessagesCount"] > 0 for c in unread)
    assert len(unread) == sum(c["unreadMessagesCount"] > 0 for c in everything)
    for name in ("priority", "pinned", "who_tipped"):
        subset = sandbox.get(ACCOUNT, "/chats", limit=100, filter=name).json()["list"]
        assert set(message_ids(subset)) < set(message_ids(everything))
    tippers = sandbox.get(ACCOUNT, "/chats", limit=100, filter="who_tipped").json()["list"]
    assert {c["lastMessage"]["id"] for c in everything if c["lastMessage"]["isTip"]} <= set(message_ids(tippers))


def test_chat_query_searches_username_and_name(sandbox):
    users = [c["withUser"] for c in sandbox.get(ACCOUNT, "/chats", limit=100, skip_users="none").json()["list"]]
    first_name = users[0]["name"].split()[0]
    found = sandbox.get(ACCOUNT, "/chats", limit=100, skip_users="none", query=first_name.lower()).json()["list"]
    assert found and all(first_name.lower() in (c["withUser"]["name"] + c["withUser"]["username"]).lower() for c in found)
    assert sandbox.get(ACCOUNT, "/chats", query="zz-nobody-zz").json() == {"list": [], "hasMore": False}


def test_chat_lists_page_and_select_their_members(sandbox):
    lists = walk_offset_pages(sandbox, ACCOUNT, "/chats/lists", 3)
    assert len(lists) == 8 and len({cl["id"] for cl in lists}) == 8
    assert all(set(cl) == {"id", "type", "name", "postsCount"} and cl["type"] == "custom" for cl in lists)
    everything = set(message_ids(sandbox.get(ACCOUNT, "/chats", limit=100).json()["list"]))
    members = set(message_ids(sandbox.get(ACCOUNT, "/chats", limit=100, list_id=lists[0]["id"]).json()["list"]))
    assert members and members < everything


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"offset": -1}, "offset"),
        ({"skip_users": "some"}, "skip_users"),
        ({"order": "newest"}, "order"),
        ({"filter": "starred"}, "filter"),
        ({"filter": "unread", "list_id": 1200000}, "list_id"),
        ({"list_id": 999}, "list_id"),
        ({"list_id": "abc"}, "list_id"),
    ],
)
def test_invalid_chat_parameters_get_a_400_naming_them(sandbox, params, parameter):
    assert error_of(sandbox.get(ACCOUNT, "/chats", **params)).startswith(parameter + ":")


def test_chat_list_limits_are_checked(sandbox):
    assert error_of(sandbox.get(ACCOUNT, "/chats/lists", limit=101)).startswith("limit:")


def test_a_new_message_moves_its_chat_to_the_top(sandbox):
    before = sandbox.get(ACCOUNT, "/chats", limit=100).json()["list"]
    sandbox.advance(3 * 86400)
    after = sandbox.get(ACCOUNT, "/chats", limit=100).json()["list"]
    assert after[0]["lastMessage"]["createdAt"] > before[0]["lastMessage"]["createdAt"]
    assert set(message_ids(after)) != set(message_ids(before))
