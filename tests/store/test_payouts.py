"""Chargebacks and payout requests from the store: snapshot offset paging, store == upstream."""

from __future__ import annotations

import pytest

from tests.fixtures.store import write_page

ROUTES = [("/v1/{account}/payouts/chargebacks", "chargebacks", "/payouts/chargebacks"),
          ("/v1/{account}/payouts/requests", "payout_requests", "/payouts/requests")]


@pytest.fixture
def filled(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, chargebacks=95, payout_requests=57, history_days=400)
    for _, table, path in ROUTES:
        api_caller.store.fill_snapshot(table, path)
    return api_caller


@pytest.mark.parametrize("route, table, _", ROUTES)
def test_every_page_from_the_store_equals_the_upstream_page(filled, route, table, _):
    params = {"start_date": "2025-01-01 00:00:00", "marker": filled.sandbox.epoch}
    stored = filled.ok(route, **params)
    assert stored["_meta"]["_cache"]["source"] == "store"
    for offset in (0, 10, 40):
        page = {**params, "offset": offset}
        assert filled.ok(route, **page)["data"] == filled.ok(route, **page, fresh="true")["data"]


@pytest.mark.parametrize("route, table, _", ROUTES)
def test_walking_returns_every_stored_row_once_even_when_rows_arrive(filled, route, table, _):
    first = filled.ok(route, start_date="2024-01-01 00:00:00")
    pin = first["data"]["marker"]
    # A row filed after the pin arrives (and the coverage grows) between page requests:
    # no later page shifts. (Rows at or before the pin cannot arrive: the store's pin is
    # the end of what it holds completely.)
    newest = first["data"]["list"][0]
    later = dict(newest)
    later["createdAt"] = "2026-01-01T00:00:01+00:00"  # one second after the pin
    if table == "chargebacks":
        later["id"] = 999_999_999
    else:
        later["invoiceId"] = "INV-9999999"
    filled.db.execute("UPDATE sync_state SET coverage_end = now() WHERE account_id = %s", (filled.account_id,))
    write_page(filled.db, table, filled.account_id, [later])
    rows, _ = filled.pages_from(first)
    key = "id" if table == "chargebacks" else "invoiceId"
    keys = [r[key] for r in rows]
    assert len(keys) == len(set(keys))
    expected = filled.db.execute(
        f"SELECT count(*) FROM {table} WHERE account_id = %s AND created_at <= to_timestamp(%s) "
        "AND created_at >= '2024-01-01'", (filled.account_id, pin),
    ).fetchone()[0]
    assert len(keys) == expected and later[key] not in keys


def test_payout_requests_pages_hold_ten_rows_and_take_no_limit(filled):
    body = filled.ok("/v1/{account}/payouts/requests", start_date="2025-01-01 00:00:00")
    assert len(body["data"]["list"]) == 10
    url = body["_pagination"]["next_page"]
    assert "offset=10" in url and "marker=" in url and "limit" not in url


def test_chargebacks_next_page_carries_limit_offset_and_marker(filled):
    body = filled.ok("/v1/{account}/payouts/chargebacks", start_date="2025-01-01 00:00:00", limit=7)
    url = body["_pagination"]["next_page"]
    assert "limit=7" in url and "offset=7" in url and f"marker={body['data']['marker']}" in url


@pytest.mark.parametrize(
    "route, params, name",
    [
        ("/v1/{account}/payouts/chargebacks", {"limit": 0}, "limit"),
        ("/v1/{account}/payouts/chargebacks", {"limit": 101}, "limit"),
        ("/v1/{account}/payouts/chargebacks", {"offset": -1}, "offset"),
        ("/v1/{account}/payouts/chargebacks", {"marker": "x"}, "marker"),
        ("/v1/{account}/payouts/requests", {"offset": "a"}, "offset"),
        ("/v1/{account}/payouts/requests", {"end_date": "31/12/2025"}, "end_date"),
    ],
)
def test_each_bad_payouts_parameter_is_a_400_naming_it(api_caller, route, params, name):
    response = api_caller.get(route, **params)
    assert response.status_code == 400, response.text
    assert name in response.json()["error"]
