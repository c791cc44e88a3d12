"""Issue 12's table: inputs at the edges of their types answer 400 naming the parameter."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.params import RANGE_RULE, upstream_timestamp
from tests.fixtures.api import error_of

#: Every route with a date window, and the names of its two dates.
DATED_ROUTES = [
    ("/v1/{account}/earnings", "start_date"),
    ("/v1/{account}/earnings/chart", "start_date"),
    ("/v1/{account}/earnings/overview", "start_date"),
    ("/v1/{account}/direct-messages", "start_date"),
    ("/v1/{account}/reach/profile-visitors", "start_date"),
    ("/v1/{account}/reach/promotions", "start_date"),
    ("/v1/{account}/campaigns/overview", "start_date"),
    ("/v1/{account}/campaigns/chart", "start_date"),
    ("/v1/{account}/payouts/chargebacks", "start_date"),
    ("/v1/{account}/payouts/requests", "start_date"),
    ("/v1/{account}/tracking-links/1/stats", "date_start"),
]


def assert_names(message: str, name: str, rule: str) -> None:
    assert f"'{name}'" in message or f"{name}:" in message, message
    assert rule in message, message


@pytest.mark.parametrize("path, name", DATED_ROUTES)
@pytest.mark.parametrize("raw", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00"])
def test_an_offset_date_beyond_the_years_datetime_holds_is_a_400(api_caller, path, name, raw):
    message = error_of(api_caller.get(path, {name: raw}), 400)
    assert_names(message, name, RANGE_RULE)


def test_an_end_whose_next_second_leaves_the_range_is_a_400(api_caller):
    message = error_of(api_caller.get("/v1/{account}/direct-messages", {"end_date": "9999-12-31"}), 400)
    assert_names(message, "end_date", RANGE_RULE)


@pytest.mark.parametrize("path", ["/v1/{account}/earnings/chart", "/v1/{account}/campaigns/overview"])
def test_a_start_whose_previous_window_precedes_year_one_is_a_400(api_caller, path):
    message = error_of(api_caller.get(path, {"start_date": "1000-01-01"}), 400)
    assert_names(message, "start_date", RANGE_RULE)


@pytest.mark.parametrize("path", ["/v1/{account}/earnings", "/v1/{account}/payouts/chargebacks"])
def test_a_marker_past_the_supported_range_is_a_400(api_caller, path):
    message = error_of(api_caller.get(path, {"marker": "253402300800"}), 400)
    assert_names(message, "marker", "<= 253402214399")


@pytest.mark.parametrize("name", ["label", "exclude_label"])
@pytest.mark.parametrize("raw", ["\u00b2", "\u0663", "99999999999999999999"])
def test_a_label_of_non_ascii_digits_or_past_bigint_is_a_400(api_caller, name, raw):
    message = error_of(api_caller.get("/v1/{account}/posts", {name: raw}), 400)
    assert_names(message, name, "numeric label id")


@pytest.mark.parametrize(
    "path", ["/v1/{account}/posts", "/v1/{account}/chats", "/v1/{account}/vault/lists", "/v1/{account}/direct-messages"]
)
def test_nul_in_a_text_parameter_is_a_400(api_caller, path):
    message = error_of(api_caller.get(path, "query=a%00b"), 400)
    assert_names(message, "query", "NUL")


@pytest.mark.parametrize(
    "path, name",
    [
        ("/v1/{account}/payouts/chargebacks", "offset"),
        ("/v1/{account}/chats", "offset"),
        ("/v1/{account}/chats", "list_id"),
        ("/v1/{account}/notifications", "from_id"),
        ("/v1/{account}/posts", "limit"),
        ("/v1/{account}/reach/profile-visitors", "limit"),
    ],
)
def test_an_integer_past_bigint_is_a_400(api_caller, path, name):
    message = error_of(api_caller.get(path, {name: "10000000000000000000"}), 400)
    assert_names(message, name, "<= 9223372036854775807")


def test_a_path_integer_past_bigint_is_a_400(api_caller):
    message = error_of(api_caller.get("/v1/{account}/tracking-links/99999999999999999999/stats"), 400)
    assert_names(message, "link_id", "<= 9223372036854775807")


@pytest.mark.parametrize("raw", ["1e400", "NaN", "Infinity", "-1.5", "1714000000.1234567"])
def test_a_posts_cursor_that_is_not_finite_unix_seconds_is_a_400(api_caller, raw):
    message = error_of(api_caller.get("/v1/{account}/posts", {"before_publish_time": raw}), 400)
    assert_names(message, "before_publish_time", "unix seconds")


def test_a_date_before_1970_is_a_400_not_an_upstream_refusal(api_caller):
    message = error_of(api_caller.get("/v1/{account}/earnings", {"start_date": "0999-01-01"}), 400)
    assert_names(message, "start_date", RANGE_RULE)


def test_dates_sent_upstream_have_zero_padded_four_digit_years():
    assert upstream_timestamp(datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC)) == "0999-01-02 03:04:05"
    assert upstream_timestamp(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01 00:00:00"


@pytest.mark.parametrize("path", ["/v1/99999999999999999999/chats", "/v1/99999999999999999999/earnings"])
def test_an_account_id_past_bigint_is_refused_naming_it(api_caller, path):
    response = api_caller.get(path)
    assert response.status_code in (400, 404), response.text
    assert "account" in error_of(response, response.status_code)


@pytest.mark.parametrize(
    "path, query",
    [
        ("/v1/99999999999999999999/chats", ""),
        ("/v1/{account}/earnings", "start_date=0001-01-01T00:00:00%2B01:00"),
        ("/v1/{account}/posts", "label=%C2%B2"),
        ("/v1/{account}/posts", "query=%00"),
        ("/v1/{account}/earnings", "marker=253402300800"),
    ],
)
def test_the_same_with_an_unknown_key_is_a_401(api_caller, path, query):
    unknown = "crk_live_" + "A" * 43
    error_of(api_caller.get(path, query, key=unknown), 401)
