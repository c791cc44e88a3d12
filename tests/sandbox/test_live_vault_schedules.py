"""Vault (processing media, lists) and scheduled chats over real HTTP."""

from __future__ import annotations

from tests.sandbox.live_helpers import error_of, walk_offset_pages

ACCOUNT = 5104
MEDIA_FIELDS = {"id", "type", "createdAt", "isReady", "canView", "hasError", "files", "duration"}
LIST_FIELDS = {"id", "type", "name", "canUpdate", "canDelete", "videosCount", "photosCount", "gifsCount",
               "audiosCount", "medias"}


def processing(sandbox) -> list[dict]:
    response = sandbox.get(ACCOUNT, "/vault/media/processing")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"list"}
    return body["list"]


def uploads_videos(sandbox) -> int:
    lists = sandbox.get(ACCOUNT, "/vault/lists", limit=100).json()["list"]
    return next(vl["videosCount"] for vl in lists if vl["name"] == "Uploads")


def test_media_in_processing_is_not_ready_and_newest_first(sandbox):
    items = processing(sandbox)
    assert items, "the default upload rate keeps some media converting at the epoch"
    for item in items:
        assert set(item) == MEDIA_FIELDS and item["type"] == "video"
        assert not item["isReady"] and not item["canView"]
        assert item["files"] == {"full": {"url": None}, "thumb": None, "preview": None, "squarePreview": None}
    created = [item["createdAt"] for item in items]
    assert created == sorted(created, reverse=True)


def test_processed_media_leaves_the_processing_list_and_lands_in_uploads(sandbox):
    before = processing(sandbox)
    uploads_before = uploads_videos(sandbox)
    sandbox.advance(4 * 3600 + 1)  # longer than any conversion
    after_ids = {item["id"] for item in processing(sandbox)}
    assert not after_ids & {item["id"] for item in before}
    # Everything that was converting is done, plus whatever arrived and finished meanwhile.
    assert uploads_videos(sandbox) >= uploads_before + len(before)


def test_processing_list_is_the_same_for_the_same_clock(sandbox):
    assert sandbox.get(ACCOUNT, "/vault/media/processing").content == sandbox.get(ACCOUNT, "/vault/media/processing").content


def test_vault_lists_page_system_lists_first_then_custom_ones(sandbox):
    rows = walk_offset_pages(sandbox, ACCOUNT, "/vault/lists", 4)
    assert len(rows) == 15 and len({vl["id"] for vl in rows}) == 15
    assert [vl["name"] for vl in rows[:5]] == ["Posts", "Stories", "Messages", "Streams", "Uploads"]
    for vl in rows:
        assert set(vl) == LIST_FIELDS
        assert vl["canUpdate"] == vl["canDelete"] == (vl["type"] == "custom")
        assert all(set(m) == {"type", "url"} for m in vl["medias"]) and len(vl["medias"]) <= 3
    body = sandbox.get(ACCOUNT, "/vault/lists").json()
    assert set(body) == {"list", "all", "hasMore", "canCreateVaultLists", "order", "sort"}
    assert len(body["list"]) == 15 and not body["hasMore"]  # default limit 24
    assert body["all"]["videosCount"] == sum(vl["videosCount"] for vl in rows[:5])
    assert (body["order"], body["sort"]) == ("asc", "default")


def test_vault_list_query_finds_custom_lists_by_name(sandbox):
    found = sandbox.get(ACCOUNT, "/vault/lists", query="BEACH").json()["list"]
    assert [vl["name"] for vl in found] == ["Beach shoot"]
    assert sandbox.get(ACCOUNT, "/vault/lists", query="posts").json()["list"] == []  # system lists are not searched
    assert error_of(sandbox.get(ACCOUNT, "/vault/lists", limit=101)).startswith("limit:")


SCHEDULED_FIELDS = {"id", "type", "publishDateTime", "createdDateTime", "entity"}


def scheduled(sandbox, **params) -> list[dict]:
    body = sandbox.get(ACCOUNT, "/schedules/later/chat", **params).json()
    assert set(body) == {"list"}
    return body["list"]


def test_scheduled_chats_are_upcoming_soonest_first(sandbox):
    now = sandbox.clock()["iso"]
    items = scheduled(sandbox, limit=50)
    assert 10 < len(items) <= 50
    for item in items:
        assert set(item) == SCHEDULED_FIELDS and item["type"] == "chat"
        assert item["createdDateTime"] <= now < item["publishDateTime"]
        entity = item["entity"]
        assert set(entity) == {"responseType", "id", "text", "isFromQueue", "queueId"}
        assert entity["responseType"] == "message" and entity["text"].startswith("<p>")
    publish = [item["publishDateTime"] for item in items]
    assert publish == sorted(publish)
    assert [i["id"] for i in scheduled(sandbox)] == [i["id"] for i in items[:10]]


def test_a_published_message_leaves_the_schedule(sandbox):
    first = scheduled(sandbox)[0]
    sandbox.set_clock(first["publishDateTime"], frozen=True)
    assert first["id"] not in {item["id"] for item in scheduled(sandbox, limit=50)}


def test_scheduled_chat_limit_is_1_to_50(sandbox):
    assert error_of(sandbox.get(ACCOUNT, "/schedules/later/chat", limit=51)).startswith("limit:")
    assert error_of(sandbox.get(ACCOUNT, "/schedules/later/chat", limit=0)).startswith("limit:")
