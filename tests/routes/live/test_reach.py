"""GET /v1/{account_id}/reach/profile-visitors and /reach/promotions against the sandbox."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from app.routes.reach import top_countries_limit

VISITORS = "/v1/{account}/reach/profile-visitors"
PROMOTIONS = "/v1/{account}/reach/promotions"
DEFAULT_WINDOW = {"start_date": "2024-01-01 00:00:00", "end_date": "2026-01-01 23:59:59"}


def test_profile_visitors_defaults(api_caller):
    body = api_caller.ok(VISITORS)
    assert set(body) == {"data", "_meta"}
    # Defaults: by=total, limit=10, two years ago to the end of today.
    assert body["data"] == api_caller.upstream("/reach/profile-visitors", by="total", limit=10, **DEFAULT_WINDOW)
    data = body["data"]
    assert {"isAvailable", "hasStats", "topCountries", "topDurationUsers", "chart", "total"} <= set(data)
    assert len(data["topCountries"]["rows"]) <= 10


@pytest.mark.parametrize("by", ["total", "guests", "users", "subscribers"])
def test_profile_visitors_rank_countries_by_the_chosen_bucket(api_caller, by):
    data = api_caller.ok(VISITORS, by=by, limit=5)["data"]
    assert data == api_caller.upstream("/reach/profile-visitors", by=by, limit=5, **DEFAULT_WINDOW)


def test_limit_zero_selects_the_upstream_default(api_caller):
    # Nothing is sent for 0, so the upstream applies its own default.
    assert api_caller.ok(VISITORS, limit=0)["data"] == api_caller.upstream("/reach/profile-visitors", **DEFAULT_WINDOW)


def test_limit_above_100_is_clamped_to_100(api_caller):
    assert top_countries_limit(250) == 100 and top_countries_limit(0) is None
    clamped = api_caller.ok(VISITORS, limit=250)["data"]
    assert clamped == api_caller.upstream("/reach/profile-visitors", limit=100, **DEFAULT_WINDOW)


@pytest.mark.parametrize(
    ("params", "named"),
    [({"limit": -1}, "limit"), ({"limit": "all"}, "limit"), ({"by": "fans"}, "by"),
     ({"start_date": "soon"}, "start_date"), ({"start_date": "2025-06-02", "end_date": "2025-06-01"}, "end_date")],
)
def test_profile_visitors_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, VISITORS, **params)


def test_promotions_default_page(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, promotions=30)
    body = api_caller.ok(PROMOTIONS)
    assert body["data"] == api_caller.upstream("/reach/promotions", limit=10, offset=0, **DEFAULT_WINDOW)
    assert len(body["data"]["items"]) == 10 and "promo" not in body["data"]["items"][0]
    assert body["_pagination"]["next_page"] == f"/v1/{api_caller.account_id}/reach/promotions?limit=10&offset=10"


def test_promotions_paged_to_the_last_page_give_every_promotion_once(api_caller, sandbox):
    sandbox.configure_account(api_caller.account_id, promotions=30)
    rows, pages = api_caller.walk(PROMOTIONS, "items", limit=7, start_date="2025-01-01")
    everything = api_caller.upstream("/reach/promotions", limit=100, start_date="2025-01-01 00:00:00",
                              end_date=DEFAULT_WINDOW["end_date"])
    assert rows == everything["items"] and len(rows) > 7
    assert len({row["id"] for row in rows}) == len(rows)
    assert "_pagination" not in pages[-1]
    query = parse_qs(urlsplit(pages[0]["_pagination"]["next_page"]).query)
    assert query == {"limit": ["7"], "offset": ["7"], "start_date": ["2025-01-01"]}


@pytest.mark.parametrize(
    ("params", "named"),
    [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"offset": -1}, "offset"),
     ({"end_date": "2025-01-01T25:00:00"}, "end_date")],
)
def test_promotions_refuse_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, PROMOTIONS, **params)
