"""The live routes' OpenAPI schema comes from the same declarations that validate them."""

from __future__ import annotations


def parameters(schema: dict, path: str, method: str = "get") -> dict[str, dict]:
    return {p["name"]: p["schema"] for p in schema["paths"][path][method]["parameters"]}


def test_bounds_defaults_and_enumerations_are_in_the_schema(api_client):
    schema = api_client.get("/docs/openapi.json").json()
    chats = parameters(schema, "/v1/{account_id}/chats")
    assert (chats["limit"]["minimum"], chats["limit"]["maximum"], chats["limit"]["default"]) == (1, 100, 10)
    assert chats["order"]["enum"] == ["recent", "old"] and chats["order"]["default"] == "recent"
    assert {"query", "filter", "list_id", "offset", "skip_users"} <= set(chats)
    trials = parameters(schema, "/v1/{account_id}/promotions-trials")
    assert (trials["limit"]["maximum"], trials["limit"]["default"]) == (200, 100)
    vault = parameters(schema, "/v1/{account_id}/vault/lists")
    assert vault["limit"]["default"] == 24
    gifs = parameters(schema, "/v1/gifs/trending")
    assert (gifs["limit"]["maximum"], gifs["limit"]["default"]) == (50, 20)
    dms = parameters(schema, "/v1/{account_id}/direct-messages")
    assert {"start_date", "end_date", "limit", "query", "offset"} == set(dms) - {"account_id"}
    read = parameters(schema, "/v1/{account_id}/notifications/{type}/read", "post")
    assert "all" not in read["type"]["enum"] and "tip" in read["type"]["enum"]
    visitors = parameters(schema, "/v1/{account_id}/reach/profile-visitors")
    assert visitors["limit"]["minimum"] == 0 and "clamped" in visitors["limit"]["description"]
