"""GET /v1/{account_id}/promotions-trials against the sandbox: defaults, paging, 400s."""

from __future__ import annotations

import pytest

FEED = "/v1/{account}/promotions-trials"


def test_default_page_is_100_items_from_offset_0(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, promotions=80, trials=60)
    body = api_caller.ok(FEED)
    assert body["data"] == api_caller.upstream("/promotions-trials", limit=100, offset=0)
    items = body["data"]["items"]
    assert len(items) == 100 and all(len(set(item) & {"promo", "trial"}) == 1 for item in items)
    assert body["_pagination"]["next_page"] == f"/v1/{api_caller.account_id}/promotions-trials?limit=100&offset=100"


def test_feed_paged_to_the_last_page_gives_every_item_once(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, promotions=80, trials=60)
    rows, pages = api_caller.walk(FEED, "items", limit=30)
    everything = api_caller.upstream("/promotions-trials", limit=200)
    assert not everything["hasMore"]
    assert rows == everything["items"] and len(pages) == -(-len(rows) // 30)
    assert "_pagination" not in pages[-1]


def test_limit_200_is_allowed(api_caller):
    assert api_caller.ok(FEED, limit=200)["data"]["hasMore"] in (True, False)


@pytest.mark.parametrize(
    ("params", "named"), [({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"offset": -1}, "offset")]
)
def test_feed_refuses_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, FEED, **params)
