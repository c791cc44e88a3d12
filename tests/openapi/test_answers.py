"""The document declares what is sent: real answers of every /v1/ JSON route, from the
store and from the upstream, decode strictly as the type the route declares (the
``Answer[T]`` its 200 shows); and the document has what a consumer needs (must-shows of
issue 27): every 200 types ``data`` and declares ``X-Request-ID``, every 429 declares
``Retry-After``, nothing internal (every success of the other routes declares ``X-Request-ID`` too)."""

from __future__ import annotations

import json
import re
from typing import Any, get_args

import msgspec
import pytest

from app.gate.route import gated_handlers

#: A request of each /v1/ JSON route: its path (after /v1/{account}) and parameters.
REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "/v1/{account_id}/chats": ("/chats", {"skip_users": "none"}),
    "/v1/{account_id}/lists": ("/lists", {}),
    "/v1/{account_id}/direct-messages": ("/direct-messages", {}),
    "/v1/{account_id}/posts": ("/posts", {}),
    "/v1/{account_id}/earnings": ("/earnings", {}),
    "/v1/{account_id}/earnings/chart": ("/earnings/chart", {}),
    "/v1/{account_id}/earnings/overview": ("/earnings/overview", {}),
    "/v1/{account_id}/reach/profile-visitors": ("/reach/profile-visitors", {}),
    "/v1/{account_id}/reach/promotions": ("/reach/promotions", {}),
    "/v1/{account_id}/campaigns/overview": ("/campaigns/overview", {}),
    "/v1/{account_id}/campaigns/chart": ("/campaigns/chart", {}),
    "/v1/{account_id}/tracking-links/{link_id}/stats": ("/tracking-links/{link}/stats", {}),
    "/v1/{account_id}/promotions-trials": ("/promotions-trials", {}),
    "/v1/{account_id}/vault/media/processing": ("/vault/media/processing", {}),
    "/v1/{account_id}/vault/lists": ("/vault/lists", {}),
    "/v1/{account_id}/payouts/chargebacks": ("/payouts/chargebacks", {}),
    "/v1/{account_id}/payouts/requests": ("/payouts/requests", {}),
    "/v1/{account_id}/schedules/later/chat": ("/schedules/later/chat", {}),
    "/v1/{account_id}/notifications": ("/notifications", {}),
    "/v1/{account_id}/notifications/{type}/read": ("/notifications/tip/read", {}),
    "/v1/gifs/trending": ("/v1/gifs/trending", {}),
    "/v1/events": ("/v1/events", {}),
}
#: More answers of the same routes, of other shapes (sections, no counters).
VARIANTS = [
    ("/v1/{account_id}/earnings/overview", {"by": by}) for by in ("earnings", "visitors", "promo", "story", "posts")
] + [("/v1/{account_id}/posts", {"counters": "false"}), ("/v1/{account_id}/chats", {"skip_users": "all"})]


def declared(app) -> dict[str, type]:
    """Route path -> the type its 200 declares (what the gate's wrapper returns)."""
    types = {}
    for path, handler in gated_handlers(app):
        returned = handler.fn.__annotations__["return"]
        types[re.sub(r":\w+}", "}", path)] = get_args(returned)[0] if get_args(returned) else returned  # Annotated[Answer[T], ...]
    return types


def _get(api_caller, route: str, params: dict[str, Any], link: int):
    path, _ = REQUESTS[route]
    path = path.format(link=link)
    url = path if path.startswith("/v1/") else f"/v1/{api_caller.account_id}{path}"
    headers = {"X-API-Key": api_caller.key}
    if route.endswith("/read"):
        return api_caller.client.post(url, headers=headers)
    return api_caller.client.get(url, params=params, headers=headers)


@pytest.mark.parametrize("source", ["store", "upstream"])
def test_every_answer_decodes_strictly_as_its_declared_type(api_caller, api_app, source):
    types = declared(api_app)
    assert set(REQUESTS) == {path for path in types if "/exports/" not in path}  # every JSON route
    links = api_caller.upstream("/tracking-links", limit=1)["list"]
    if source == "store":
        api_caller.store.fill_earnings()
        api_caller.store.fill_snapshot("chargebacks", "/payouts/chargebacks")
        api_caller.store.fill_snapshot("payout_requests", "/payouts/requests")
        api_caller.store.fill_posts()
        api_caller.store.fill_links()
    sources = set()
    for route, params in [(route, params) for route, (_, params) in REQUESTS.items()] + VARIANTS:
        answer = _get(api_caller, route, params, links[0]["id"])
        assert answer.status_code == 200, (route, answer.text)
        decoded = msgspec.json.decode(answer.content, type=types[route], strict=True)
        assert decoded.meta.credits.used == 1
        if decoded.meta.cache is not None:
            sources.add(decoded.meta.cache.source)
    assert sources == {source}  # the store routes answered from where the test meant


def test_the_document_types_every_answer_and_declares_its_headers(api_client):
    document = api_client.get("/docs/openapi.json").json()
    schemas = document["components"]["schemas"]
    text = json.dumps(document)
    assert "_cache_for_meta" not in text and "Envelope" not in schemas
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            success = next(status for status in responses if status[0] in "23")  # 200, or /status's 303
            assert responses[success]["headers"]["X-Request-ID"]["required"] is True, (method, path)
            if "429" in responses:
                assert responses["429"]["headers"]["Retry-After"]["required"] is True, (method, path)
            if not path.startswith("/v1/"):
                continue
            assert "429" in responses and "401" in responses, (method, path)
            for status, response in responses.items():
                if status != "200":
                    assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
                    assert response["content"]["application/json"]["examples"], (method, path, status)
            if "/exports/" in path:
                assert "409" in responses and "text/csv" in responses["200"]["content"]
                continue
            reference = responses["200"]["content"]["application/json"]["schema"]["$ref"]
            answer = schemas[reference.rsplit("/", 1)[-1]]
            assert set(answer["required"]) == {"data", "_meta"}, (method, path)
            data = answer["properties"]["data"]
            assert "$ref" in data, (method, path, data)  # a named type, not "any"
            assert schemas[data["$ref"].rsplit("/", 1)[-1]]["properties"], (method, path)
    meta = schemas["Meta"]["properties"]
    assert set(meta) == {"_credits", "_rate_limits", "_cache"}
