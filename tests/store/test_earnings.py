"""Earnings feed and chart from the store: rules, 400s, walks and store == upstream."""

from __future__ import annotations

import pytest

from tests.fixtures.api import error_of

WINDOW = {"start_date": "2025-12-01 00:00:00", "end_date": "2025-12-31T23:59:59"}


@pytest.fixture
def dense(api_caller):
    """3,000 rows over the last 10 days; the store holds the whole history."""
    api_caller.sandbox.configure_account(api_caller.account_id, earnings=3000, history_days=10)
    api_caller.store.fill_earnings()
    return api_caller


def test_first_page_from_the_store_equals_the_upstream_page(dense):
    stored = dense.ok("/v1/{account}/earnings", **WINDOW)
    live = dense.ok("/v1/{account}/earnings", **WINDOW, fresh="true")
    assert stored["_meta"]["_cache"]["source"] == "store"
    assert live["_meta"]["_cache"]["source"] == "upstream"
    assert stored["data"] == live["data"]
    # next_page keeps the caller's query, fresh included.
    assert stored["_pagination"]["next_page"] == live["_pagination"]["next_page"].replace("fresh=true&", "")


@pytest.mark.parametrize("type_, source", [("tips", None), ("tips", "chat"), ("subscribes", None), ("stream", None)])
def test_type_and_tips_source_filter_like_the_upstream(dense, type_, source):
    params = {**WINDOW, "type": type_, **({"tips_source": source} if source else {})}
    assert dense.ok("/v1/{account}/earnings", **params)["data"] == dense.ok("/v1/{account}/earnings", **params, fresh="true")["data"]


def test_marker_paging_never_repeats_or_loses_rows_within_one_second(dense):
    rows, _ = dense.walk("/v1/{account}/earnings", start_date="2025-12-30 00:00:00", end_date="2025-12-31 23:59:59")
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    expected = dense.db.execute(
        "SELECT count(*) FROM earnings WHERE account_id = %s AND created_at >= '2025-12-30' "
        "AND created_at <= '2025-12-31 23:59:59+00'", (dense.account_id,)
    ).fetchone()[0]
    assert len(ids) == expected
    keys = [(r["createdAt"], int(r["id"])) for r in rows]
    assert keys == sorted(keys, reverse=True)


def test_ties_on_one_second_are_walked_exactly_once(api_caller):
    # 3,000 rows in the last half hour: many seconds hold several rows.
    api_caller.sandbox.configure_account(api_caller.account_id, earnings=3000, history_days=0.02)
    api_caller.store.fill_earnings()
    start = "2025-12-31 23:00:00"  # the whole history
    rows, _ = api_caller.walk("/v1/{account}/earnings", start_date=start)
    seconds = [r["createdAt"] for r in rows]
    assert len(seconds) > len(set(seconds)), "the data must have ties for this test to mean anything"
    ids = [r["id"] for r in rows]
    stored = {r[0] for r in api_caller.db.execute(
        "SELECT id FROM earnings WHERE account_id = %s AND created_at >= '2025-12-31 23:00:00+00'",
        (api_caller.account_id,),
    )}
    assert sorted(ids) == sorted(stored) and len(ids) == len(set(ids))


def test_rows_arriving_during_a_walk_are_never_repeated(dense):
    first = dense.ok("/v1/{account}/earnings", **WINDOW)
    # A row arrives (newer than everything) between two page requests.
    newest = first["data"]["list"][0]
    arrived = {**newest, "id": "1999999999999", "createdAt": "2025-12-31T23:59:59+00:00"}
    from tests.fixtures.store import write_page

    write_page(dense.db, "earnings", dense.account_id, [arrived], type="subscribes", tips_source=None)
    rows, _ = dense.pages_from(first)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) and "1999999999999" not in ids


def test_next_page_carries_start_date_and_marker_only(dense):
    body = dense.ok("/v1/{account}/earnings", start_date="2025-12-20T00:00:00")
    url = body["_pagination"]["next_page"]
    assert "start_date=2025-12-20%2000%3A00%3A00" in url
    assert f"marker={body['data']['nextMarker']}" in url and "marker_id" not in url


def test_a_window_outside_the_coverage_is_read_live_and_written_back(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, earnings=2000, history_days=30)
    body = api_caller.ok("/v1/{account}/earnings", **WINDOW, type="subscribes")
    assert body["_meta"]["_cache"]["source"] == "upstream"
    stored = api_caller.db.execute("SELECT count(*) FROM earnings WHERE account_id = %s", (api_caller.account_id,)).fetchone()[0]
    assert stored == len(body["data"]["list"]) > 0


@pytest.mark.parametrize(
    "params, name",
    [
        ({"type": "refunds"}, "type"),
        ({"tips_source": "chat"}, "tips_source"),
        ({"type": "post", "tips_source": "chat"}, "tips_source"),
        ({"marker_id": "123"}, "marker_id"),
        ({"marker": "soon"}, "marker"),
        ({"marker": "1", "marker_id": "12a"}, "marker_id"),
        ({"start_date": "yesterday"}, "start_date"),
        ({"start_date": "2025-12-02", "end_date": "2025-12-01"}, "end_date"),
    ],
)
def test_each_bad_feed_parameter_is_a_400_naming_it(api_caller, params, name):
    assert name in error_of(api_caller.get("/v1/{account}/earnings", **params), 400)


# --- chart -----------------------------------------------------------------------------------

BY = ["total", "subscribes", "tips", "post", "chat_messages", "stream",
      "tips_profile", "tips_post", "tips_chat", "tips_stream", "tips_story"]


@pytest.fixture
def year(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, earnings=6000, history_days=400)
    api_caller.store.fill_earnings()
    return api_caller


@pytest.mark.parametrize("by", BY)
def test_daily_chart_from_the_store_equals_the_upstream(year, by):
    window = {"start_date": "2025-10-15T06:30:00", "end_date": "2025-12-20 18:00:00", "by": by}
    stored = year.ok("/v1/{account}/earnings/chart", **window)
    assert stored["_meta"]["_cache"]["source"] == "store"
    assert stored["data"] == year.ok("/v1/{account}/earnings/chart", **window, fresh="true")["data"]
    assert len(stored["data"]["chartAmount"]) == 67  # daily: 15 Oct .. 20 Dec


@pytest.mark.parametrize("by", ["total", "tips", "tips_post"])
def test_monthly_chart_from_the_store_equals_the_upstream(year, by):
    window = {"start_date": "2025-06-10 12:00:00", "end_date": "2025-12-31 23:59:59", "by": by}
    stored = year.ok("/v1/{account}/earnings/chart", **window)
    assert stored["data"] == year.ok("/v1/{account}/earnings/chart", **window, fresh="true")["data"]
    assert [p["date"][:7] for p in stored["data"]["chartAmount"]][:2] == ["2025-06", "2025-07"]


def test_ninety_days_is_daily_and_one_second_more_is_monthly(year):
    daily = year.ok("/v1/{account}/earnings/chart", start_date="2025-10-03 00:00:00", end_date="2025-12-31 23:59:59")
    monthly = year.ok("/v1/{account}/earnings/chart", start_date="2025-10-02 23:59:59", end_date="2025-12-31 23:59:59")
    assert len(daily["data"]["chartCount"]) == 90 and len(monthly["data"]["chartCount"]) == 3


def test_chart_rejects_an_unknown_by(api_caller):
    response = api_caller.get("/v1/{account}/earnings/chart", by="refunds")
    assert response.status_code == 400 and "by" in response.json()["error"]


def test_the_feed_query_walks_the_keyset_index_without_sorting(db):
    from datetime import UTC, datetime

    from app.store.earnings_feed import FeedQuery, feed_statement

    db.execute(
        "INSERT INTO earnings (account_id, id, type, created_at, amount, net, fee, payload) "
        "SELECT a, (1000000000000 + i)::text, 'tips', timestamptz '2025-01-01' + i * interval '30 s', 1, 1, 0, '{}' "
        "FROM generate_series(1, 20000) i, generate_series(1, 5) a"
    )
    db.execute("ANALYZE earnings")
    now = datetime(2026, 1, 1, tzinfo=UTC)
    query = FeedQuery(datetime(2024, 1, 1, tzinfo=UTC), now, marker=1736000000, marker_id="1000000010000")
    statement, params = feed_statement(query, 3, now)
    plan = "\n".join(r[0] for r in db.execute("EXPLAIN " + statement, params))
    assert "Index Scan Backward using ix_earnings_account_id_created_at_id" in plan, plan
    assert "Sort" not in plan, plan
