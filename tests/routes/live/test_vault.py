"""GET /v1/{account_id}/vault/media/processing and /vault/lists against the sandbox."""

from __future__ import annotations

import pytest

PROCESSING = "/v1/{account}/vault/media/processing"
LISTS = "/v1/{account}/vault/lists"


def test_media_processing_passes_the_upstream_list_through(live_api, upstream_get, sandbox):
    sandbox.configure_account(live_api.account_id, vault_uploads=20000)  # some always converting
    body = live_api.ok(PROCESSING)
    assert set(body) == {"data", "_meta"}
    assert body["data"] == upstream_get("/vault/media/processing")
    assert body["data"]["list"] and all(item["isReady"] is False for item in body["data"]["list"])


def test_media_processing_ignores_paging_parameters_it_does_not_have(live_api, sandbox):
    sandbox.configure_account(live_api.account_id, vault_uploads=20000)
    assert live_api.ok(PROCESSING, limit=1)["data"] == live_api.ok(PROCESSING)["data"]


def test_vault_lists_default_to_24_from_offset_0(live_api, upstream_get, sandbox):
    sandbox.configure_account(live_api.account_id, vault_lists=40)
    body = live_api.ok(LISTS)
    assert body["data"] == upstream_get("/vault/lists", limit=24, offset=0)
    assert len(body["data"]["list"]) == 24
    assert {"all", "canCreateVaultLists", "order", "sort", "hasMore"} <= set(body["data"])
    assert body["_pagination"]["next_page"] == f"/v1/{live_api.account_id}/vault/lists?limit=24&offset=24"


def test_vault_lists_paged_to_the_last_page_give_every_list_once(live_api, upstream_get, sandbox):
    sandbox.configure_account(live_api.account_id, vault_lists=40)
    rows, pages = live_api.walk(LISTS, "list", limit=7)
    assert rows == upstream_get("/vault/lists", limit=100)["list"] and len(rows) == 45
    assert len(pages) == 7 and "_pagination" not in pages[-1]


def test_vault_list_query_finds_custom_lists_and_is_kept_on_every_page(live_api, upstream_get, sandbox):
    sandbox.configure_account(live_api.account_id, vault_lists=40)
    custom = [vl for vl in upstream_get("/vault/lists", limit=100)["list"] if vl["type"] == "custom"]
    needle = custom[0]["name"].split()[0].lower()
    rows, pages = live_api.walk(LISTS, "list", limit=2, query=needle)
    assert rows == upstream_get("/vault/lists", limit=100, query=needle)["list"]
    assert rows and all(needle in vl["name"].lower() and vl["type"] == "custom" for vl in rows)
    assert all(f"query={needle}" in page["_pagination"]["next_page"] for page in pages[:-1])


@pytest.mark.parametrize(
    ("params", "named"), [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"offset": -2}, "offset")]
)
def test_vault_lists_refuse_a_bad_value_naming_the_parameter(live_api, params, named):
    assert named in live_api.error(400, LISTS, **params)
