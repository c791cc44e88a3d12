"""Trending GIFs over real HTTP: provider shape, numeric-string sizes, paging, any-account token."""

from __future__ import annotations

from tests.sandbox.live_helpers import error_of

IMAGE_KEYS = {
    "fixed_height": {"url", "width", "height", "mp4"},
    "fixed_width": {"url", "width", "height", "mp4"},
    "original": {"url", "width", "height"},
    "original_mp4": {"width", "height", "mp4"},
    "preview_gif": {"url", "width", "height"},
}


def trending(sandbox, token_account: int = 77, **params):
    return sandbox.control.get("/api/gifs/trending", params=params, headers=sandbox.headers(token_account))


def test_trending_gifs_have_the_provider_shape_with_string_sizes(sandbox):
    body = trending(sandbox).json()
    assert set(body) == {"data", "pagination"}
    assert body["pagination"] == {"total_count": 250, "count": 20, "offset": 0}
    for item in body["data"]:
        assert set(item) == {"id", "title", "alt_text", "rating", "is_sticker", "type", "url", "embed_url", "images"}
        assert isinstance(item["id"], str) and item["is_sticker"] == 0 and item["type"] == "gif"
        assert {name: set(image) for name, image in item["images"].items()} == IMAGE_KEYS
        for image in item["images"].values():
            assert image["width"].isdigit() and image["height"].isdigit()


def test_trending_pages_walk_the_whole_list_once(sandbox):
    ids, offset = [], 0
    while True:
        body = trending(sandbox, limit=50, offset=offset).json()
        assert body["pagination"]["offset"] == offset and body["pagination"]["count"] == len(body["data"])
        if not body["data"]:
            break
        ids += [gif["id"] for gif in body["data"]]
        offset += len(body["data"])
    assert len(ids) == len(set(ids)) == 250


def test_trending_is_stable_within_a_day_and_any_sandbox_token_works(sandbox):
    assert trending(sandbox, 1).content == trending(sandbox, 99999).content
    first = trending(sandbox).json()["data"][0]["id"]
    sandbox.advance(86400)
    assert trending(sandbox).json()["data"][0]["id"] != first


def test_trending_needs_a_sandbox_token_and_valid_paging(sandbox):
    assert sandbox.control.get("/api/gifs/trending").status_code == 401
    assert sandbox.control.get("/api/gifs/trending", headers={"Authorization": "Bearer other"}).status_code == 401
    assert error_of(trending(sandbox, limit=51)).startswith("limit:")
    assert error_of(trending(sandbox, offset=-1)).startswith("offset:")
