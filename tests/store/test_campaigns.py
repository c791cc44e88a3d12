"""Campaigns overview and chart, tracking-link stats from the store; store == upstream."""

from __future__ import annotations

import pytest


@pytest.fixture
def filled(store_api):
    store_api.sandbox.configure_account(store_api.account_id, tracking_links=6, history_days=400)
    store_api.fill_links()
    return store_api


WINDOWS = [
    {"start_date": "2025-11-01 00:00:00", "end_date": "2025-12-31 23:59:59"},
    {"start_date": "2025-03-15T10:00:00", "end_date": "2025-09-01T00:00:00"},
    {"start_date": "2025-12-01 00:00:00"},
]


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("route", ["/campaigns/overview", "/campaigns/chart"])
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
        stored = filled.ok(f"/tracking-links/{link_id}/stats", **dates)
        live = filled.ok(f"/tracking-links/{link_id}/stats", **dates, fresh="true")
        assert stored["_meta"]["_cache"]["source"] == "store"
        # The store does not know the upstream's last scan: null, never invented.
        assert stored["data"]["summary"].pop("last_scanned_at") is None
        live["data"]["summary"].pop("last_scanned_at")
        assert stored["data"] == live["data"]


def test_unknown_link_is_a_404_from_the_store(filled):
    response = filled.get("/tracking-links/424242/stats")
    assert response.status_code == 404


def test_bad_dates_are_400s(store_api):
    assert store_api.get("/tracking-links/1/stats", date_start="soon").status_code == 400
    assert store_api.get("/campaigns/overview", start_date="2025-13-01").status_code == 400
    assert store_api.get("/campaigns/chart", start_date="2025-12-02", end_date="2025-12-01").status_code == 400
