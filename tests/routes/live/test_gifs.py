"""GET /v1/gifs/trending against the sandbox: the nested body, defaults, paging, 400s."""

from __future__ import annotations

import pytest

from tests.fixtures.api import auth

TRENDING = "/v1/gifs/trending"


@pytest.fixture
def upstream_gifs(sandbox):
    def get(**params) -> dict:
        response = sandbox.control.get("/api/gifs/trending", params=params, headers=sandbox.headers(1))
        assert response.status_code == 200, response.text
        return response.json()

    return get


def test_trending_nests_the_provider_body_with_the_defaults(api_caller, upstream_gifs):
    body = api_caller.ok(TRENDING)
    assert set(body["data"]) == {"data", "pagination"}
    assert body["data"] == upstream_gifs(limit=20, offset=0)
    assert len(body["data"]["data"]) == 20
    assert set(body["data"]["pagination"]) == {"total_count", "count", "offset"}
    assert body["_pagination"]["next_page"] == "/v1/gifs/trending?limit=20&offset=20"


def test_trending_pages_followed_to_the_last_give_every_gif_once(api_caller, upstream_gifs):
    rows, pages = api_caller.walk(TRENDING, "data", limit=50)
    total = pages[0]["data"]["pagination"]["total_count"]
    every = [gif for offset in range(0, total, 50) for gif in upstream_gifs(limit=50, offset=offset)["data"]]
    assert rows == every and len({gif["id"] for gif in rows}) == total == len(rows)
    assert len(pages) == -(-total // 50) and "_pagination" not in pages[-1]


def test_an_offset_past_the_end_is_an_empty_last_page(api_caller):
    body = api_caller.ok(TRENDING, offset=1000)
    assert body["data"]["data"] == [] and "_pagination" not in body


@pytest.mark.parametrize(
    ("params", "named"), [({"limit": 0}, "limit"), ({"limit": 51}, "limit"), ({"offset": -1}, "offset")]
)
def test_trending_refuses_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, TRENDING, **params)


def test_trending_without_any_connected_account_is_a_424(api_client, make_org, make_key):
    key = make_key(make_org())
    response = api_client.get(TRENDING, headers=auth(key))
    assert response.status_code == 424, response.text
    assert "no account is connected" in response.json()["error"]
    assert response.headers["x-credits-used"] == "1"
