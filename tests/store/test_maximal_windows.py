"""The most expensive request each dated route accepts has a bounded cost (issue 25, "Work
bounded by input").

On an account with ten years of history in the store (30,000 earnings, 40 tracking links
with their daily stats, chargebacks, payout requests), each route is asked for the longest
window its setting allows, with its largest page and its costliest options. What the API
spends is bounded: the answer's size, this process's CPU time (the app runs in-process: the
event loop's work, whatever else loads the machine) and the wall time (which includes the
sandbox's own work for live routes). Before the bounds, ``earnings/chart`` of 1970..9999
answered 9 MB after 0.9 s of CPU and the campaigns chart of 1970..today 1.5 MB.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from app.params import upstream_timestamp
from app.settings import Settings

SETTINGS = Settings()
#: The end of the sandbox's (and our pinned clock's) today.
END = datetime(2026, 1, 1, 23, 59, 59, tzinfo=UTC)


def longest(days: int, **more: object) -> dict:
    """The longest window a setting of ``days`` allows, ending today, plus ``more``."""
    return {"start_date": upstream_timestamp(END - timedelta(days=days)), "end_date": upstream_timestamp(END), **more}


CHART = longest(SETTINGS.chart_window_max_days)
DAILY = longest(SETTINGS.daily_window_max_days)
#: The feeds' longest window (100 years) cannot end today: it starts at 1970 instead.
WHOLE = {"start_date": "1970-01-01 00:00:00",
         "end_date": upstream_timestamp(datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=SETTINGS.feed_window_max_days))}


@dataclass(frozen=True)
class Case:
    path: str
    params: dict
    max_bytes: int
    source: str  # "store" or "live": where the answer must come from (the cost measured)
    max_cpu_s: float = 0.2
    max_wall_s: float = 5.0


CASES = [
    # 25 years of monthly buckets: 302 per series (1970..9999 was 96,000: 9 MB).
    Case("/v1/{account}/earnings/chart", CHART, 64_000, "store"),
    Case("/v1/{account}/earnings/chart", {**CHART, "by": "tips_post"}, 64_000, "store"),
    Case("/v1/{account}/earnings/overview", CHART, 160_000, "live", max_wall_s=10.0),
    Case("/v1/{account}/reach/profile-visitors", {**CHART, "limit": 100}, 64_000, "live"),
    # Ten years of daily points: 3,661 per series.
    Case("/v1/{account}/campaigns/chart", DAILY, 320_000, "store"),
    Case("/v1/{account}/campaigns/overview", DAILY, 160_000, "store"),
    # Feeds: a page, whatever the window.
    Case("/v1/{account}/earnings", WHOLE, 16_000, "store"),
    Case("/v1/{account}/earnings", {**WHOLE, "type": "tips", "tips_source": "post_all"}, 16_000, "store"),
    Case("/v1/{account}/payouts/chargebacks", {**WHOLE, "limit": 100}, 96_000, "store"),
    Case("/v1/{account}/payouts/requests", WHOLE, 16_000, "store"),
    Case("/v1/{account}/direct-messages", {**WHOLE, "limit": 100, "query": "no such words"}, 16_000, "live"),
    Case("/v1/{account}/direct-messages", {**WHOLE, "limit": 100}, 64_000, "live"),
    Case("/v1/{account}/reach/promotions", {**WHOLE, "limit": 100}, 96_000, "live"),
]


@pytest.fixture
def ten_years(api_caller):
    api_caller.sandbox.configure_account(api_caller.account_id, earnings=30_000, history_days=3650, tracking_links=40)
    api_caller.store.fill_earnings()
    api_caller.store.fill_links()
    api_caller.store.fill_snapshot("chargebacks", "/payouts/chargebacks")
    api_caller.store.fill_snapshot("payout_requests", "/payouts/requests")
    return api_caller


def measure(api, path: str, params: dict) -> tuple[object, float, float]:
    """(response, CPU seconds of this process, wall seconds) of one request, warm."""
    api.get(path, **params)  # first use of a statement or a connection is not the cost
    cpu, wall = time.process_time(), time.perf_counter()
    response = api.get(path, **params)
    return response, time.process_time() - cpu, time.perf_counter() - wall


def test_the_longest_window_of_each_route_costs_a_bounded_answer(ten_years):
    oldest_link = ten_years.db.execute(
        "SELECT id FROM tracking_links WHERE account_id = %s ORDER BY created_at LIMIT 1", (ten_years.account_id,)
    ).fetchone()[0]
    # No dates: unbounded, as the spec says; the link's whole life (about ten years).
    cases = [*CASES, Case(f"/v1/{ten_years.account_id}/tracking-links/{oldest_link}/stats", {}, 400_000, "store")]
    over = []
    for case in cases:
        response, cpu, wall = measure(ten_years, case.path, case.params)
        assert response.status_code == 200, (case.path, response.text)
        body = response.json()
        assert body["_meta"].get("_cache", {"source": "live"})["source"] == case.source, case.path
        size = len(response.content)
        print(f"{case.path} {case.params}: {size} bytes, {cpu * 1000:.0f} ms CPU, {wall * 1000:.0f} ms")
        if size > case.max_bytes or cpu > case.max_cpu_s or wall > case.max_wall_s:
            over.append((case.path, case.params, size, round(cpu, 3), round(wall, 3)))
        if "end_date" in case.params:  # and it is the longest: a second more is refused
            end = datetime.fromisoformat(case.params["end_date"]).replace(tzinfo=UTC) + timedelta(seconds=1)
            assert ten_years.get(case.path, **{**case.params, "end_date": upstream_timestamp(end)}).status_code == 400
    assert not over, over


def test_the_charts_buckets_are_bounded_by_the_window_setting(ten_years):
    body = ten_years.ok("/v1/{account}/earnings/chart", **CHART)["data"]
    assert len(body["chartAmount"]) == len(body["chartCount"]) == 25 * 12 + 2  # Dec 2000 .. Jan 2026
    assert body["chartAmount"][0]["date"] == "2000-12-01T00:00:00+00:00"
    points = ten_years.ok("/v1/{account}/campaigns/chart", **DAILY)["data"]["clicks"]
    assert len(points) == SETTINGS.daily_window_max_days + 1
