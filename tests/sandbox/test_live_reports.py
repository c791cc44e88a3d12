"""Earnings overview, profile visitors and promotions over real HTTP."""

from __future__ import annotations

import pytest

from tests.sandbox.live_helpers import error_of, walk_offset_pages

ACCOUNT = 5103
CONTENT_CARD = {"hasStatistic", "count", "views", "earnings", "chartData"}


def test_earnings_overview_has_every_card(sandbox):
    body = sandbox.get(ACCOUNT, "/earnings/overview").json()
    assert set(body) == {"earning", "posts", "streams", "visitors", "massMessages"}
    assert set(body["earning"]) == {"total", "gross", "delta"} and body["earning"]["total"] < body["earning"]["gross"]
    for card in ("posts", "streams", "massMessages"):
        assert set(body[card]) == CONTENT_CARD
        assert set(body[card]["earnings"]) == {"total", "gross", "delta"}
        assert all(set(point) == {"date", "count"} for point in body[card]["chartData"])
    assert isinstance(body["streams"]["count"]["total"], str) and body["streams"]["count"]["total"].endswith("m")
    visitors = body["visitors"]
    assert set(visitors) == {"hasStatistic", "count", "visitors", "subscriptions", "chartData"}
    assert set(visitors["subscriptions"]) == {"new", "renew"}
    # The default window is two years: monthly buckets, labelled by their first day.
    assert all(point["date"][8:] == "01T00:00:00+00:00" for point in visitors["chartData"])


def test_earnings_overview_money_matches_the_sum_of_its_chart(sandbox):
    body = sandbox.get(ACCOUNT, "/earnings/overview", start_date="2025-11-01", end_date="2025-11-30").json()
    posts = body["posts"]
    assert len(posts["chartData"]) == 30  # a month: daily buckets
    assert round(sum(p["count"] for p in posts["chartData"]), 2) == posts["earnings"]["total"]


@pytest.mark.parametrize("by", ["earnings", "posts", "streams", "visitors", "massMessages", "story", "promo"])
def test_by_narrows_the_overview_to_one_section(sandbox, by):
    body = sandbox.get(ACCOUNT, "/earnings/overview", by=by, start_date="2025-10-01").json()
    expected = {"earnings": "earning"}.get(by, by)
    assert list(body) == [expected]
    section = body[expected]
    if by == "visitors":
        assert "chartData" not in section  # the smaller card
    if by == "promo":
        assert set(section) == {"hasStatistic", "earnings", "claims", "chartData"}
        # The clock stands at 2026-01-01: the default end (end of today) reaches January.
        assert [p["date"][:10] for p in section["chartData"]] == ["2025-10-01", "2025-11-01", "2025-12-01", "2026-01-01"]
    if by == "story":
        assert set(section) == CONTENT_CARD


def test_earnings_overview_is_deterministic_and_grows_with_the_clock(sandbox):
    first = sandbox.get(ACCOUNT, "/earnings/overview", start_date="2025-12-01")
    assert first.content == sandbox.get(ACCOUNT, "/earnings/overview", start_date="2025-12-01").content
    sandbox.advance(5 * 86400)
    later = sandbox.get(ACCOUNT, "/earnings/overview", start_date="2025-12-01").json()
    assert later["earning"]["gross"] > first.json()["earning"]["gross"]


def test_invalid_overview_parameters_get_a_400(sandbox):
    assert error_of(sandbox.get(ACCOUNT, "/earnings/overview", by="likes")).startswith("by:")
    assert error_of(sandbox.get(ACCOUNT, "/earnings/overview", start_date="soon")).startswith("start_date:")


def test_profile_visitors_have_the_documented_shape_with_numeric_strings(sandbox):
    body = sandbox.get(ACCOUNT, "/reach/profile-visitors", start_date="2025-12-01", end_date="2025-12-31").json()
    assert set(body) == {"isAvailable", "hasStats", "topCountries", "topDurationUsers", "chart", "total"}
    for totals in (body["topCountries"]["totals"], body["topDurationUsers"]["totals"]):
        assert isinstance(totals["guests"], str) and isinstance(totals["users"], str)
        assert isinstance(totals["total"], int) and isinstance(totals["subscribers"], int)
        assert totals["total"] == int(totals["guests"]) + int(totals["users"]) + totals["subscribers"]
    assert isinstance(body["total"]["current"], str) and int(body["total"]["current"]) == body["topCountries"]["totals"]["total"]
    assert len(body["chart"]["visitors"]) == len(body["chart"]["duration"]) == 31
    assert sum(p["count"] for p in body["chart"]["visitors"]) == int(body["total"]["current"])
    assert len(body["topCountries"]["rows"]) == 10 and body["topCountries"]["hasMore"]


@pytest.mark.parametrize("by", ["total", "guests", "users", "subscribers"])
def test_profile_visitor_countries_are_ranked_by_the_chosen_bucket(sandbox, by):
    rows = sandbox.get(ACCOUNT, "/reach/profile-visitors", by=by, limit=100).json()["topCountries"]["rows"]
    values = [int(row[by]) for row in rows]
    assert values == sorted(values, reverse=True)


def test_profile_visitor_rows_add_up_and_limit_zero_is_the_default(sandbox):
    body = sandbox.get(ACCOUNT, "/reach/profile-visitors", limit=100).json()["topCountries"]
    assert not body["hasMore"] and sum(row["total"] for row in body["rows"]) == body["totals"]["total"]
    assert len(sandbox.get(ACCOUNT, "/reach/profile-visitors", limit=0).json()["topCountries"]["rows"]) == 10
    assert len(sandbox.get(ACCOUNT, "/reach/profile-visitors", limit=3).json()["topCountries"]["rows"]) == 3
    assert error_of(sandbox.get(ACCOUNT, "/reach/profile-visitors", limit=-1)).startswith("limit:")
    assert error_of(sandbox.get(ACCOUNT, "/reach/profile-visitors", by="bots")).startswith("by:")


PROMO_FIELDS = {"id", "message", "rawMessage", "hasRelatedPromo", "price", "type", "canClaim", "claimsCount",
                "subscribeCounts", "subscribeDays", "createdAt", "finishedAt", "isFinished"}
TRIAL_FIELDS = {"id", "url", "trialLinkName", "subscribeDays", "subscribeCounts", "claimCounts", "createdAt",
                "expiredAt", "isFinished"}


def test_promotion_history_pages_inside_its_window_newest_first(sandbox):
    rows = walk_offset_pages(sandbox, ACCOUNT, "/reach/promotions", 4, key="items", start_date="2025-03-01")
    assert len(rows) > 4 and len({p["id"] for p in rows}) == len(rows)
    assert all(set(p) == PROMO_FIELDS and p["type"] in ("new", "all") for p in rows)
    created = [p["createdAt"] for p in rows]
    assert created == sorted(created, reverse=True) and created[-1] >= "2025-03-01"
    narrow = sandbox.get(ACCOUNT, "/reach/promotions", start_date="2025-05-01", end_date="2025-06-30", limit=100).json()
    assert [p["id"] for p in narrow["items"]] == [p["id"] for p in rows if "2025-05-01" <= p["createdAt"] < "2025-07-01"]


def test_promotions_and_trials_are_one_feed_of_exactly_one_kind_per_item(sandbox):
    rows = walk_offset_pages(sandbox, ACCOUNT, "/promotions-trials", 6, key="items")
    assert {"promo", "trial"} == {kind for item in rows for kind in item}
    for item in rows:
        (kind, value), = item.items()
        assert set(value) == (PROMO_FIELDS if kind == "promo" else TRIAL_FIELDS)
    created = [next(iter(item.values()))["createdAt"] for item in rows]
    assert created == sorted(created, reverse=True)
    assert len(rows) == len(sandbox.get(ACCOUNT, "/promotions-trials", limit=200).json()["items"])
    assert error_of(sandbox.get(ACCOUNT, "/promotions-trials", limit=201)).startswith("limit:")


def test_a_running_promo_finishes_when_the_clock_passes_its_end(sandbox):
    running = [p for p in sandbox.get(ACCOUNT, "/reach/promotions", limit=100).json()["items"] if not p["isFinished"]]
    assert running
    sandbox.advance(31 * 86400)
    after = {p["id"]: p for p in sandbox.get(ACCOUNT, "/reach/promotions", limit=100).json()["items"]}
    for promo in running:
        assert after[promo["id"]]["isFinished"] and after[promo["id"]]["claimsCount"] >= promo["claimsCount"]
