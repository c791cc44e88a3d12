"""A client that pages the posts feed the spec's way never loses a post (issue 17).

The walk uses only the spec's parameters: ``limit``, ``order`` and, from page two, the
cursor of the order (``before_publish_time`` descending, ``after_publish_time`` ascending)
set to the previous page's ``tailMarker``. The account is dense with ties (the sandbox's
``ties`` knob): ~35 posts share each ``postedAtPrecise``, more than a page holds, and the
upstream's own pages end inside such groups. From the store and live alike, a walk in a
date order returns every post of the feed once.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.sync.helpers import sandbox_truth, store_truth

DENSE = {"posts": 1500, "history_days": 0.0005, "ties": True}
CURSOR = {"publish_date_desc": "before_publish_time", "publish_date_asc": "after_publish_time",
          "favorites_count_desc": "before_publish_time", "tips_summ_desc": "before_publish_time",
          "tips_summ_asc": "after_publish_time"}


@pytest.fixture
def dense(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, **DENSE)
    api_caller.store.fill_posts()
    now = api_caller.sandbox.epoch
    # The store holds every post (the fill re-reads tied groups): the walks' ground truth.
    assert store_truth(api_caller.db, api_caller.account_id, "posts", 0, now) == sandbox_truth(
        api_caller.sandbox, api_caller.account_id, "posts", 0, now
    )
    return api_caller


def _feed_ids(api) -> list[int]:
    """The default feed's posts (neither archive), from the verified store."""
    rows = api.db.execute(
        "SELECT id FROM posts WHERE account_id = %s"
        " AND NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false)",
        (api.account_id,),
    )
    return sorted(r[0] for r in rows)


def _walk(api, order: str, limit: int, **extra) -> list[dict]:
    params = {"order": order, "limit": limit, **extra}
    rows = []
    while True:
        data = api.ok("/v1/{account}/posts", **params)["data"]
        rows += data["list"]
        if not data["hasMore"]:
            return rows
        params[CURSOR[order]] = data["tailMarker"]
        assert len(rows) < 10_000, "paging does not end"


@pytest.mark.parametrize("source", ["store", "upstream"])
@pytest.mark.parametrize("limit", [10, 100])
@pytest.mark.parametrize("order", ["publish_date_desc", "publish_date_asc"])
def test_walking_by_tail_marker_returns_each_post_once(dense, source, order, limit):
    extra = {"fresh": "true"} if source == "upstream" else {}
    first = dense.ok("/v1/{account}/posts", order=order, limit=limit, **extra)
    assert first["_meta"]["_cache"]["source"] == source
    rows = _walk(dense, order, limit, **extra)
    per_value = Counter(p["postedAtPrecise"] for p in rows)
    assert max(per_value.values()) > 10, "a value must be shared by more posts than a page"
    ids = [p["id"] for p in rows]
    assert len(ids) == len(set(ids)) and sorted(ids) == _feed_ids(dense)
    keys = [(p["postedAtPrecise"], p["id"]) for p in rows]
    assert keys == sorted(keys, reverse=order.endswith("desc"))


@pytest.mark.parametrize("order", ["publish_date_desc", "publish_date_asc"])
def test_store_and_upstream_pages_are_the_same_pages(dense, order):
    params = {"order": order, "limit": 50}
    for _ in range(5):
        stored, live = dense.ok("/v1/{account}/posts", **params)["data"], dense.ok("/v1/{account}/posts", **params, fresh="true")["data"]
        assert [p["id"] for p in stored["list"]] == [p["id"] for p in live["list"]]
        assert (stored["hasMore"], stored["headMarker"], stored["tailMarker"]) == (
            live["hasMore"], live["headMarker"], live["tailMarker"]
        )
        params[CURSOR[order]] = stored["tailMarker"]


def test_a_page_ends_before_a_split_value_or_holds_one_value_whole(dense):
    whole = dense.ok("/v1/{account}/posts", limit=10)["data"]["list"]
    assert len(whole) > 10 and len({p["postedAtPrecise"] for p in whole}) == 1
    trimmed = dense.ok("/v1/{account}/posts", limit=50)["data"]["list"]
    assert len(trimmed) < 50 and [p["id"] for p in trimmed] == [p["id"] for p in whole]


@pytest.mark.parametrize("source", ["store", "upstream"])
def test_a_filtered_walk_returns_each_matching_post_once(dense, source):
    """Audio posts: a few per value, so pages span several values and end between them."""
    extra = {"fresh": "true"} if source == "upstream" else {}
    rows = _walk(dense, "publish_date_desc", 10, media_type="audios", **extra)
    expected = dense.db.execute(
        "SELECT id FROM posts WHERE account_id = %s AND media_types && ARRAY['audio']"
        " AND NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false)",
        (dense.account_id,),
    )
    ids = [p["id"] for p in rows]
    assert len(ids) == len(set(ids)) and sorted(ids) == sorted(r[0] for r in expected)
    assert len(ids) > 50 and len({p["postedAtPrecise"] for p in rows}) < len(ids)


@pytest.mark.parametrize("limit", [10, 100])
@pytest.mark.parametrize("order", ["favorites_count_desc", "tips_summ_desc", "tips_summ_asc"])
def test_a_value_order_from_the_store_returns_each_post_once(dense, order, limit):
    """The tailMarker of a value order names a post; ~35 posts share each value, so pages end
    only on the first post of a value in the order, and the walk is exact."""
    rows = _walk(dense, order, limit)
    ids = [p["id"] for p in rows]
    assert len(ids) == len(set(ids)) and sorted(ids) == _feed_ids(dense)
