"""GET /v1/{account_id}/vault/media/processing and /vault/lists against the sandbox."""

from __future__ import annotations

import pytest

PROCESSING = "/v1/{account}/vault/media/processing"
LISTS = "/v1/{account}/vault/lists"


def test_media_processing_passes_the_upstream_list_through(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, vault_uploads=20000)  # some always converting
    body = api_caller.ok(PROCESSING)
    assert set(body) == {"data", "_meta"}
    assert body["data"] == api_caller.upstream("/vault/media/processing")
    assert body["data"]["list"] and all(item["isReady"] is False for item in body["data"]["list"])


def test_media_processing_ignores_paging_parameters_it_does_not_have(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, vault_uploads=20000)
    assert api_caller.ok(PROCESSING, limit=1)["data"] == api_caller.ok(PROCESSING)["data"]


def test_vault_lists_default_to_24_from_offset_0(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, vault_lists=40)
    body = api_caller.ok(LISTS)
    assert body["data"] == api_caller.upstream("/vault/lists", limit=24, offset=0)
    assert len(body["data"]["list"]) == 24
    assert {"all", "canCreateVaultLists", "order", "sort", "hasMore"} <= set(body["data"])
    assert body["_pagination"]["next_page"] == f"/v1/{api_caller.account_id}/vault/lists?limit=24&offset=24"


def test_vault_lists_paged_to_the_last_page_give_every_list_once(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, vault_lists=40)
    rows, pages = api_caller.walk(LISTS, "list", limit=7)
    assert rows == api_caller.upstream("/vault/lists", limit=100)["list"] and len(rows) == 45
    assert len(pages) == 7 and "_pagination" not in pages[-1]


def test_vault_list_query_finds_custom_lists_and_is_kept_on_every_page(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, vault_lists=40)
    custom = [vl for vl in api_caller.upstream("/vault/lists", limit=100)["list"] if vl["type"] == "custom"]
    needle = custom[0]["name"].split()[0].lower()
    rows, pages = api_caller.walk(LISTS, "list", limit=2, query=needle)
    assert rows == api_caller.upstream("/vault/lists", limit=100, query=needle)["list"]
    assert rows and all(needle in vl["name"].lower() and vl["type"] == "custom" for vl in rows)
    assert all(f"query={needle}" in page["_pagination"]["next_page"] for page in pages[:-1])


@pytest.mark.parametrize(
    ("params", "named"), [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"offset": -2}, "offset")]
)
def test_vault_lists_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, LISTS, **params)
