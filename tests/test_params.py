"""The shared date parameters: accepted forms, the T normalisation, defaults and 400s."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from litestar.exceptions import ValidationException

from app.params import EARLIEST, LATEST, RANGE_RULE, DateWindow, parse_timestamp, upstream_timestamp
from app.store.earnings import bucket_labels

NOW = datetime(2026, 5, 1, 10, 30, 15, 123456, tzinfo=UTC)


@pytest.mark.parametrize(
    "raw",
    [
        "2025-01-02 03:04:05",
        "2025-01-02T03:04:05",
        "2025-01-02T03:04:05Z",
        "2025-01-02T03:04:05+00:00",
        "2025-01-02T05:04:05+02:00",
        "2025-01-02T03:04:05.999",
    ],
)
def test_every_accepted_form_reads_as_the_same_utc_second(raw: str) -> None:
    assert parse_timestamp("start_date", raw) == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_t_separator_is_normalised_to_a_space_upstream() -> None:
    moment = parse_timestamp("end_date", "2025-01-02T03:04:05Z")
    assert upstream_timestamp(moment) == "2025-01-02 03:04:05"


def test_bare_date_is_the_first_second_or_the_last_for_an_end() -> None:
    assert parse_timestamp("start_date", "2025-01-02") == datetime(2025, 1, 2, tzinfo=UTC)
    assert parse_timestamp("end_date", "2025-01-02", end=True) == datetime(
        2025, 1, 2, 23, 59, 59, tzinfo=UTC
    )


def test_window_defaults_are_two_years_ago_and_the_end_of_today() -> None:
    window = DateWindow.parse(None, None, now=NOW)
    assert window.upstream() == {
        "start_date": "2024-05-01 10:30:15",
        "end_date": "2026-05-01 23:59:59",
    }


@pytest.mark.parametrize("raw", ["yesterday", "2025-13-01", "2025-01-02 25:00:00", "1714000000"])
def test_unreadable_date_is_a_400_naming_the_parameter(raw: str) -> None:
    with pytest.raises(ValidationException) as caught:
        DateWindow.parse(raw, None, now=NOW)
    assert caught.value.status_code == 400
    assert caught.value.extra[0]["key"] == "start_date"


def test_end_before_start_is_a_400_naming_end_date() -> None:
    with pytest.raises(ValidationException) as caught:
        DateWindow.parse("2025-03-01", "2025-02-01", now=NOW)
    assert caught.value.extra[0]["key"] == "end_date"


def test_two_years_ago_is_calendar_years_across_a_leap_day() -> None:
    window = DateWindow.parse(None, None, now=datetime(2026, 1, 1, tzinfo=UTC))
    assert window.start == datetime(2024, 1, 1, tzinfo=UTC)
    leap = DateWindow.parse(None, None, now=datetime(2028, 2, 29, 12, tzinfo=UTC))
    assert leap.start == datetime(2026, 2, 28, 12, tzinfo=UTC)


def test_exclusive_end_of_a_day_is_the_next_days_first_second() -> None:
    default = DateWindow.parse(None, None, now=NOW, end_exclusive=True)
    assert default.upstream()["end_date"] == "2026-05-02 00:00:00"
    bare = DateWindow.parse(None, "2025-01-31", now=NOW, end_exclusive=True)
    assert bare.upstream()["end_date"] == "2025-02-01 00:00:00"
    cursor = DateWindow.parse(None, "2025-01-31T10:00:00+00:00", now=NOW, end_exclusive=True)
    assert cursor.upstream()["end_date"] == "2025-01-31 10:00:00"


# --- the supported range and its edges ---------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    ["1969-12-31 23:59:59", "0001-01-01T00:00:00+01:00", "9999-12-31", "9999-12-30T23:00:00-05:00", "0999-01-01"],
)
def test_a_moment_outside_the_supported_range_is_a_400(raw: str) -> None:
    with pytest.raises(ValidationException) as caught:
        parse_timestamp("start_date", raw)
    assert caught.value.extra[0] == {"key": "start_date", "message": RANGE_RULE, "source": "query"}


@pytest.mark.parametrize("raw", ["\u0662\u0660\u0662\u0665-01-01", "2025-01-01\n", " 2025-01-01", "2025-01-01\x00"])
def test_only_ascii_digits_and_no_stray_characters_are_read(raw: str) -> None:
    with pytest.raises(ValidationException):
        parse_timestamp("start_date", raw)


def test_the_edges_of_the_range_are_accepted_and_the_exclusive_end_stays_a_datetime() -> None:
    assert parse_timestamp("start_date", "1970-01-01") == EARLIEST
    assert parse_timestamp("end_date", "9999-12-30", end=True) == LATEST
    window = DateWindow.parse("1970-01-01", "9999-12-30", now=NOW, end_exclusive=True)
    assert window.upstream()["end_date"] == "9999-12-31 00:00:00"


def test_the_previous_window_of_equal_length_never_starts_before_the_range() -> None:
    window = DateWindow.parse("1970-01-02", "9999-12-30", now=NOW)
    assert window.previous == DateWindow(EARLIEST, datetime(1970, 1, 1, 23, 59, 59, tzinfo=UTC))
    first = DateWindow.parse("1970-01-01", "1970-01-31", now=NOW).previous
    assert first.start == EARLIEST and first.end < first.start  # empty: nothing before 1970
    inside = DateWindow.parse("2025-01-11", "2025-01-20", now=NOW).previous
    assert (inside.start, inside.end) == (datetime(2025, 1, 1, tzinfo=UTC), datetime(2025, 1, 10, 23, 59, 59, tzinfo=UTC))


def test_monthly_buckets_reach_the_last_month_of_the_range() -> None:
    labels = bucket_labels(datetime(9999, 10, 5, tzinfo=UTC), LATEST, daily=False)
    assert [label.month for label in labels] == [10, 11, 12]
    assert bucket_labels(LATEST, LATEST, daily=True) == [datetime(9999, 12, 30, tzinfo=UTC)]


def test_an_open_window_sends_only_the_given_end_upstream() -> None:
    window = DateWindow.parse(None, "2025-02-01", now=NOW, start_name="date_start", end_name="date_end", unbounded=True)
    assert window.start == EARLIEST
    assert window.upstream("date_start", "date_end") == {"date_start": None, "date_end": "2025-02-01 23:59:59"}
