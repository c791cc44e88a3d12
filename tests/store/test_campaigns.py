"""Campaigns overview and chart, tracking-link stats from the store; store == upstream."""

from __future__ import annotations

import pytest


@pytest.fixture
def filled(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, tracking_links=6, history_days=400)
    api_caller.store.fill_links()
    return api_caller


WINDOWS = [
    {"start_date": "2025-11-01 00:00:00", "end_date": "2025-12-31 23:59:59"},
    {"start_date": "2025-03-15T10:00:00", "end_date": "2025-09-01T00:00:00"},
    {"start_date": "2025-12-01 00:00:00"},
]


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("route", ["/v1/{account}/campaigns/overview", "/v1/{account}/campaigns/chart"])
def test_campaigns_from_the_store_equal_the_upstream(filled, route, window):
    stored = filled.ok(route, **window)
    assert stored["_meta"]["_cache"]["source"] == "store"
    assert stored["data"] == filled.ok(route, **window, fresh="true")["data"]


def _links(api) -> list[int]:
    return [r[0] for r in api.db.execute("SELECT id FROM tracking_links WHERE account_id = %s ORDER BY id", (api.account_id,))]


@pytest.mark.parametrize(
    "dates",
    [{}, {"date_start": "2025-06-01"}, {"date_end": "2025-10-15 12:00:00"},
     {"date_start": "2025-02-10T00:00:00", "date_end": "2025-04-20T00:00:00"}],
)
def test_link_stats_from_the_store_equal_the_upstream(filled, dates):
    for link_id in _links(filled)[:3]:
        stored = filled.ok(f"/v1/{filled.account_id}/tracking-links/{link_id}/stats", **dates)
        live = filled.ok(f"/v1/{filled.account_id}/tracking-links/{link_id}/stats", **dates, fresh="true")
        assert stored["_meta"]["_cache"]["source"] == "store"
        # The store does not know the upstream's last scan: null, never invented.
        assert stored["data"]["summary"].pop("last_scanned_at") is None
        live["data"]["summary"].pop("last_scanned_at")
        assert stored["data"] == live["data"]


def test_unknown_link_is_a_404_from_the_store(filled):
    before = filled.sandbox.requests(filled.account_id)
    response = filled.get("/v1/{account}/tracking-links/424242/stats")
    assert response.status_code == 404
    assert response.json() == {"error": "tracking link 424242 not found", "code": "not_found"}
    # Answered by the store (it covers the links): the upstream was not asked.
    assert filled.sandbox.requests(filled.account_id) == before


@pytest.mark.parametrize(
    "route, params, name, rule",
    [
        ("/v1/{account}/tracking-links/1/stats", {"date_start": "soon"}, "date_start", "YYYY-MM-DD"),
        ("/v1/{account}/tracking-links/1/stats", {"date_start": "2025-03-02", "date_end": "2025-03-01"}, "date_end", "must not be before date_start"),
        ("/v1/{account}/campaigns/overview", {"start_date": "2025-13-01"}, "start_date", "YYYY-MM-DD"),
        ("/v1/{account}/campaigns/chart", {"start_date": "2025-12-02", "end_date": "2025-12-01"}, "end_date", "must not be before start_date"),
    ],
)
def test_bad_dates_are_400s_naming_the_parameter_and_the_rule(api_caller, route, params, name, rule):
    before = api_caller.sandbox.requests(api_caller.account_id)
    response = api_caller.get(route, **params)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_parameter"
    assert name in body["error"] and rule in body["error"], body
    assert api_caller.sandbox.requests(api_caller.account_id) == before  # refused before any upstream call
