"""GET /v1/{account_id}/earnings/overview against the sandbox: defaults, `by`, dates, 400s."""

from __future__ import annotations

import pytest

OVERVIEW = "/v1/{account}/earnings/overview"
#: The pinned clock is 2026-01-01T00:00:00Z: two years ago, and the end of today.
DEFAULT_WINDOW = {"start_date": "2024-01-01 00:00:00", "end_date": "2026-01-01 23:59:59"}
SECTIONS = ["earnings", "posts", "streams", "visitors", "massMessages", "story", "promo"]


def test_overview_defaults_to_every_section_over_the_default_window(api_caller):
    body = api_caller.ok(OVERVIEW)
    assert set(body) == {"data", "_meta"}  # never paged
    assert set(body["data"]) == {"earning", "posts", "streams", "visitors", "massMessages"}
    assert body["data"] == api_caller.upstream("/earnings/overview", **DEFAULT_WINDOW)


@pytest.mark.parametrize("by", SECTIONS)
def test_by_narrows_to_one_section_forwarded_as_given(api_caller, by):
    data = api_caller.ok(OVERVIEW, by=by, start_date="2025-03-01", end_date="2025-05-31")["data"]
    assert set(data) == {"earning" if by == "earnings" else by}
    window = {"start_date": "2025-03-01 00:00:00", "end_date": "2025-05-31 23:59:59"}
    assert data == api_caller.upstream("/earnings/overview", by=by, **window)


def test_t_separator_and_space_give_the_same_overview(api_caller):
    spaced = api_caller.ok(OVERVIEW, start_date="2025-02-01 06:00:00", end_date="2025-03-01 18:00:00")
    iso = api_caller.ok(OVERVIEW, start_date="2025-02-01T06:00:00Z", end_date="2025-03-01T18:00:00")
    assert spaced["data"] == iso["data"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"by": "total"}, "by"),
        ({"by": "Earnings"}, "by"),
        ({"start_date": "01/02/2025"}, "start_date"),
        ({"end_date": "2025-02-30"}, "end_date"),
        ({"start_date": "2025-06-02", "end_date": "2025-06-01"}, "end_date"),
    ],
)
def test_overview_refuses_a_bad_value_naming_the_parameter(api_caller, params, named):
    assert named in api_caller.error(400, OVERVIEW, **params)
