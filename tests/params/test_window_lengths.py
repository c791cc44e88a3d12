"""Every date window has a maximum length per route; longer is a 400 naming the parameter,
before any upstream call or store read (issue 25, "Work bounded by input")."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from litestar.datastructures import State
from litestar.exceptions import ValidationException

from app.params import (
    CHART_WINDOW_MAX_DAYS,
    DAILY_WINDOW_MAX_DAYS,
    FEED_WINDOW_MAX_DAYS,
    DateWindow,
    provide_date_window,
    upstream_timestamp,
)
from app.setting_values import DEFAULT_WINDOW_DAYS, SettingsError
from app.settings import Settings
from tests.fixtures.api import error_of

#: Every route with a date window: (path, start name, end name, the setting bounding it).
WINDOWED = [
    ("/v1/{account}/earnings", "start_date", "end_date", FEED_WINDOW_MAX_DAYS),
    ("/v1/{account}/direct-messages", "start_date", "end_date", FEED_WINDOW_MAX_DAYS),
    ("/v1/{account}/reach/promotions", "start_date", "end_date", FEED_WINDOW_MAX_DAYS),
    ("/v1/{account}/payouts/chargebacks", "start_date", "end_date", FEED_WINDOW_MAX_DAYS),
    ("/v1/{account}/payouts/requests", "start_date", "end_date", FEED_WINDOW_MAX_DAYS),
    ("/v1/{account}/earnings/chart", "start_date", "end_date", CHART_WINDOW_MAX_DAYS),
    ("/v1/{account}/earnings/overview", "start_date", "end_date", CHART_WINDOW_MAX_DAYS),
    ("/v1/{account}/reach/profile-visitors", "start_date", "end_date", CHART_WINDOW_MAX_DAYS),
    ("/v1/{account}/campaigns/overview", "start_date", "end_date", DAILY_WINDOW_MAX_DAYS),
    ("/v1/{account}/campaigns/chart", "start_date", "end_date", DAILY_WINDOW_MAX_DAYS),
    ("/v1/{account}/tracking-links/1/stats", "date_start", "date_end", DAILY_WINDOW_MAX_DAYS),
]
#: Exports take a window too, bounded by the stored coverage instead (docs/api-decisions.md).
UNBOUNDED_BY_LENGTH = {"/v1/{account_id}/exports/{resource}"}

START = datetime(2000, 1, 1, tzinfo=UTC)
COVERED = ("earnings", "tracking_links", "tracking_link_daily_stats", "chargebacks", "payout_requests")


def _max_days(setting: str) -> int:
    return getattr(Settings(), setting)


def _rule(start: str, end: str, setting: str) -> str:
    return f"the window from {start} to {end} may span at most {_max_days(setting)} days on this route"


@pytest.fixture
def covered(api_caller):
    """The account's whole (empty) history is stored: store routes answer without the upstream."""
    for resource in COVERED:
        api_caller.store.cover(resource)
    return api_caller


def test_every_route_with_a_date_window_has_a_maximum_length(api_client):
    paths = api_client.get("/docs/openapi.json").json()["paths"]
    dated = {
        path
        for path, item in paths.items()
        for operation in item.values()
        if {p["name"] for p in operation.get("parameters", [])} & {"start_date", "date_start"}
    }
    listed = {path.replace("{account}", "{account_id}").replace("/1/", "/{link_id}/") for path, *_ in WINDOWED}
    assert dated == listed | UNBOUNDED_BY_LENGTH


@pytest.mark.parametrize("path, start, end, setting", WINDOWED)
def test_the_longest_window_is_served_and_one_second_more_is_a_400(covered, sandbox, path, start, end, setting):
    longest = START + timedelta(days=_max_days(setting))
    accepted = covered.get(path, {start: upstream_timestamp(START), end: upstream_timestamp(longest)})
    assert accepted.status_code != 400, accepted.text  # 200, or 404 for the unknown link
    before = sandbox.requests(covered.account_id)["requests"]
    refused = covered.get(path, {start: upstream_timestamp(START), end: upstream_timestamp(longest + timedelta(seconds=1))})
    message = error_of(refused, 400)
    assert message == f"invalid query parameter '{end}': {_rule(start, end, setting)}"
    assert sandbox.requests(covered.account_id)["requests"] == before  # nothing sent upstream


@pytest.mark.parametrize("path, start, end, setting", WINDOWED)
def test_the_issues_1970_to_9999_window_is_a_400_on_every_route(covered, path, start, end, setting):
    message = error_of(covered.get(path, {start: "1970-01-01", end: "9999-12-30"}), 400)
    assert _rule(start, end, setting) in message and f"'{end}'" in message


@pytest.mark.parametrize(
    "path, start, end, setting", [w for w in WINDOWED if w[1] == "start_date" and w[3] != FEED_WINDOW_MAX_DAYS]
)
def test_a_far_start_with_the_default_end_names_the_start(covered, path, start, end, setting):
    far = datetime(2026, 1, 1, tzinfo=UTC) - timedelta(days=_max_days(setting) + 1)
    message = error_of(covered.get(path, {start: upstream_timestamp(far)}), 400)
    assert message == f"invalid query parameter '{start}': {_rule(start, end, setting)}"


@pytest.mark.parametrize("path", ["/v1/{account}/earnings/chart", "/v1/{account}/reach/profile-visitors"])
def test_a_far_end_with_the_default_start_names_the_end(covered, path):
    message = error_of(covered.get(path, {"end_date": "2999-01-01"}), 400)
    assert message.startswith("invalid query parameter 'end_date': the window from start_date to end_date")


def test_the_feeds_take_a_whole_history_from_1970(covered):
    for path in ("/v1/{account}/earnings", "/v1/{account}/payouts/chargebacks", "/v1/{account}/direct-messages"):
        response = covered.get(path, {"start_date": "1970-01-01"})
        assert response.status_code == 200, response.text


@pytest.mark.parametrize("params", [{}, {"date_start": "1970-01-01"}, {"date_end": "9999-12-30"}])
def test_tracking_link_stats_keep_an_absent_end_unbounded(covered, params):
    """The spec: "absent means unbounded". Such a window is not measured: what it covers is
    the link's days, never past today (docs/api-decisions.md)."""
    response = covered.get("/v1/{account}/tracking-links/1/stats", params)
    assert response.status_code == 404, response.text  # the unknown link, not the window
    assert error_of(response, 404).startswith("tracking link 1 not found")


def test_the_openapi_schema_states_each_routes_maximum(api_client):
    paths = api_client.get("/docs/openapi.json").json()["paths"]
    for path, start, end, setting in WINDOWED:
        operation = paths[path.replace("{account}", "{account_id}").replace("/1/", "/{link_id}/")]["get"]
        described = {p["name"]: p.get("description", "") for p in operation["parameters"]}
        for name in (start, end):
            assert f"at most {_max_days(setting):,} days on this route" in described[name], (path, name)
            assert f"RELAY_{setting.upper()}" in described[name], (path, name)


# --- the settings ------------------------------------------------------------------------------


@pytest.mark.parametrize("setting", [FEED_WINDOW_MAX_DAYS, CHART_WINDOW_MAX_DAYS, DAILY_WINDOW_MAX_DAYS])
def test_a_window_setting_shorter_than_the_default_window_is_refused(setting):
    with pytest.raises(SettingsError, match=f"RELAY_{setting.upper()} must be at least {DEFAULT_WINDOW_DAYS}"):
        Settings(**{setting: DEFAULT_WINDOW_DAYS - 1})


@pytest.mark.parametrize("setting", [FEED_WINDOW_MAX_DAYS, CHART_WINDOW_MAX_DAYS, DAILY_WINDOW_MAX_DAYS])
def test_a_route_reads_its_maximum_from_the_running_settings(setting):
    parse = provide_date_window(setting).dependency
    state = State({"settings": dataclasses.replace(Settings(), **{setting: 1000})})
    assert parse(state, "2000-01-01 00:00:00", "2002-09-27 00:00:00").end == datetime(2002, 9, 27, tzinfo=UTC)
    with pytest.raises(ValidationException, match="may span at most 1000 days"):
        parse(state, "2000-01-01 00:00:00", "2002-09-27 00:00:01")


@pytest.mark.parametrize("exclusive", [False, True])
def test_the_default_window_always_fits_the_smallest_maximum(exclusive):
    """Two calendar years back from any moment (leap days, 29 February, a second before
    midnight) to the end of today fit DEFAULT_WINDOW_DAYS, so no setting refuses a default."""
    nows = [datetime(2028, 2, 29, 0, 0, 0, tzinfo=UTC), datetime(2028, 3, 1, 0, 0, 0, tzinfo=UTC),
            datetime(2025, 1, 1, 0, 0, 0, tzinfo=UTC), datetime(2024, 12, 31, 0, 0, 1, tzinfo=UTC)]
    nows += [datetime(2020, 1, 1, tzinfo=UTC) + timedelta(hours=7 * i) for i in range(2000)]
    longest = max(
        (w.end - w.start) for w in (DateWindow.parse(None, None, now=now, end_exclusive=exclusive) for now in nows)
    )
    assert timedelta(days=DEFAULT_WINDOW_DAYS - 1) < longest <= timedelta(days=DEFAULT_WINDOW_DAYS)
