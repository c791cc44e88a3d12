"""The posts feed from the store: filters, five orders, cursors, counters; store == upstream."""

from __future__ import annotations

import pytest

from tests.fixtures.api import error_of

ORDERS = ["publish_date_desc", "publish_date_asc", "favorites_count_desc", "tips_summ_desc", "tips_summ_asc"]


@pytest.fixture
def filled(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, posts=240)
    api_caller.store.fill_posts()
    return api_caller


def _without_streams(body: dict) -> dict:
    """The store does not know streamsCount (null, never a made-up 0); the upstream says 0."""
    data = dict(body["data"])
    if "counters" in data:
        data["counters"] = {k: v for k, v in data["counters"].items() if k != "streamsCount"}
    return data


@pytest.mark.parametrize("order", ORDERS)
def test_each_order_walks_like_the_upstream(filled, order):
    stored = filled.ok("/v1/{account}/posts", order=order, limit=25)
    assert stored["_meta"]["_cache"]["source"] == "store"
    assert stored["data"]["counters"]["streamsCount"] is None
    live = filled.ok("/v1/{account}/posts", order=order, limit=25, fresh="true")
    assert _without_streams(stored) == _without_streams(live)
    walked, _ = filled.pages_from(stored)
    ids = [p["id"] for p in walked]
    assert len(ids) == len(set(ids)) == stored["data"]["counters"]["postsCount"]


@pytest.mark.parametrize(
    "filters",
    [
        {"media_type": "photos"}, {"media_type": "videos"}, {"media_type": "audios"}, {"media_type": "medias"},
        {"label": "archived"}, {"label": "private_archived"}, {"exclude_label": "archived"},
        {"label": "1"}, {"exclude_label": "2"}, {"pinned": "true"}, {"pinned": "false"}, {"query": "e"},
        {"counters": "false"}, {"limit": 500},
    ],
)
def test_each_filter_matches_the_upstream(filled, filters):
    stored = filled.ok("/v1/{account}/posts", **filters)
    assert _without_streams(stored) == _without_streams(filled.ok("/v1/{account}/posts", **filters, fresh="true"))


def test_limit_above_100_is_clamped_and_markers_have_six_decimals(filled):
    body = filled.ok("/v1/{account}/posts", limit=500)["data"]
    assert len(body["list"]) == 100
    assert len(body["tailMarker"].split(".")[1]) == 6 and body["headMarker"] == body["list"][0]["postedAtPrecise"]


def test_next_page_carries_limit_order_and_cursor(filled):
    body = filled.ok("/v1/{account}/posts", order="tips_summ_asc", limit=5)
    url = body["_pagination"]["next_page"]
    assert "limit=5" in url and "order=tips_summ_asc" in url and "after_publish_time=" in url


@pytest.mark.parametrize(
    "params, name",
    [
        ({"order": "random"}, "order"),
        ({"limit": 0}, "limit"),
        ({"media_type": "gifs"}, "media_type"),
        ({"label": "favourites"}, "label"),
        ({"exclude_label": "x1"}, "exclude_label"),
        ({"pinned": "maybe"}, "pinned"),
        ({"after_publish_time": "1.000000"}, "after_publish_time"),
        ({"order": "publish_date_asc", "before_publish_time": "1.0"}, "before_publish_time"),
        ({"before_publish_time": "yesterday"}, "before_publish_time"),
        ({"order": "tips_summ_desc", "before_publish_time": "1.000001"}, "before_publish_time"),
    ],
)
def test_each_bad_posts_parameter_is_a_400_naming_it(filled, params, name):
    assert name in error_of(filled.get("/v1/{account}/posts", **params), 400)
