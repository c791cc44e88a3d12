"""Property: every route's parameters, drawn across each type's whole range and its edges,
answer 200 or a 4xx ``{"error"}`` -- never a 5xx.

The routes and their parameters come from the app itself (its route handlers and its
OpenAPI schema), so a new route or parameter is covered without editing this file. Values
are drawn from the schema's type: integers at and around their declared bounds and past
bigint, strings matching and breaking their pattern (dates at the edges of ``datetime`` with
offsets), enumerations and junk (NUL, non-ASCII digits). The store covers the account's
whole history (empty tables), so ``fresh`` picks the store or the sandbox. Bounded: a few
derandomized examples per route, so the file runs in well under a minute.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.exceptions import ValidationException

from app.params import BIGINT_MAX, EARLIEST, LATEST, TIMESTAMP_PATTERN, parse_timestamp
from app.routes import route_handlers

EXAMPLES_PER_ROUTE = 20

#: Every operation under /v1/, as (method, OpenAPI path).
OPERATIONS = sorted(
    (method, path.replace(":int}", "}").replace(":str}", "}"))
    for handler in route_handlers()
    for path in handler.paths
    if path.startswith("/v1/")
    for method in handler.http_methods
)

#: The two ends of a date window, as the routes name them.
WINDOWS = (("start_date", "end_date"), ("date_start", "date_end"))

COVERED = ("earnings", "posts", "tracking_links", "tracking_link_daily_stats", "chargebacks", "payout_requests")

_JUNK = st.sampled_from(["", " ", "\x00", "a\x00b", "\u00b2", "\u0663\u0662", "1.5", "-0", "1e3", "NaN", "true", "%", "null"])
_EDGE_INTS = [0, 1, -1, 2**31, 2**53 + 1, BIGINT_MAX, BIGINT_MAX + 1, 2**64, -(2**63), -(2**63) - 1, 10**30]
_FIRST, _LAST = EARLIEST.replace(tzinfo=None), LATEST.replace(tzinfo=None)
_OFFSETS = ["+00:00", "+01:00", "-05:00", "+23:59", "-23:59", "+14"]


def _integers(schema: dict, valid: bool) -> st.SearchStrategy[str]:
    low, high = schema.get("minimum"), schema.get("maximum")
    low, high = (None if low is None else int(low)), (None if high is None else int(high))
    inside = [v for v in (low, high, 0, 1) if v is not None and (low is None or v >= low) and (high is None or v <= high)]
    allowed = st.sampled_from(inside) | st.integers(low, high)
    if valid:
        return allowed.map(str)
    edges = _EDGE_INTS + [b + d for b in (low, high) if b is not None for d in (-1, 1)]
    return st.one_of(allowed, st.sampled_from(edges), st.integers()).map(str) | _JUNK


def _form(moment: datetime, offset: str, separator: str, bare: bool) -> str:
    day = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    return day if bare else f"{day}{separator}{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}{offset}"


def _moments(valid: bool) -> st.SearchStrategy[str]:
    """Dates in every accepted form; valid ones anywhere in the supported range (its edges
    included), the others anywhere in what ``datetime`` holds, with offsets."""
    separator = st.sampled_from([" ", "T"])
    edges = st.sampled_from([_FIRST, _LAST, _LAST.replace(hour=0, minute=0, second=0)])
    if valid:
        utc = st.sampled_from(["", "Z", "+00:00"])
        inside = st.builds(_form, edges | st.datetimes(_FIRST, _LAST), utc, separator, st.booleans())
        shifted = st.builds(
            _form, st.datetimes(_FIRST + timedelta(days=1), _LAST - timedelta(days=1)), st.sampled_from(_OFFSETS),
            separator, st.just(False),
        )
        return inside | shifted
    anywhere = st.sampled_from([datetime.min, datetime.max, datetime(1969, 12, 31, 23, 59, 59), datetime(9999, 12, 31),
                                datetime(1000, 1, 1)]) | st.datetimes()
    return st.builds(_form, anywhere, st.sampled_from(["", "Z", *_OFFSETS]), separator, st.booleans()) | _JUNK


def _readable(raw: str) -> bool:
    """Whether the API reads this date (else it answers 400 before any upstream call)."""
    try:
        parse_timestamp("date", raw)
    except ValidationException:
        return False
    return True


def _strings(schema: dict, valid: bool) -> st.SearchStrategy[str]:
    pattern = schema.get("pattern")
    if pattern == TIMESTAMP_PATTERN:
        return _moments(valid)
    allowed = st.from_regex(pattern, fullmatch=True) if pattern else st.text(max_size=20).filter(lambda t: "\x00" not in t)
    return allowed if valid else allowed | _JUNK | st.text(max_size=12)


def _values(schema: dict, valid: bool) -> st.SearchStrategy[str]:
    """A query or path value for a parameter of this JSON schema (``oneOf`` with null too):
    one the declaration allows when ``valid``, else anything."""
    shared = {key: value for key, value in schema.items() if key != "oneOf"}  # e.g. a pattern
    options = [{**shared, **s} for s in schema.get("oneOf", [schema]) if s.get("type") != "null"]
    strategies = []
    for option in options:
        if "enum" in option:
            allowed = st.sampled_from([str(v) for v in option["enum"]])
            strategies.append(allowed if valid else allowed | _JUNK)
        elif option.get("type") == "integer":
            strategies.append(_integers(option, valid))
        elif option.get("type") == "boolean":
            allowed = st.sampled_from(["true", "false"])
            strategies.append(allowed if valid else allowed | _JUNK | st.just("yes"))
        else:
            strategies.append(_strings(option, valid))
    return st.one_of(strategies) if strategies else st.text(max_size=20)


def _short_windows(names: tuple[str, str]) -> st.SearchStrategy[dict[str, str]]:
    """Both ends of a window of up to 400 days anywhere in the supported range, its edges
    included, in every accepted form (or neither end)."""
    def window(start: datetime, days: int, seconds: int, forms: tuple) -> dict[str, str]:
        end = start + min(timedelta(days=days, seconds=seconds), _LAST - start)
        return {names[0]: _form(start, *forms[0]), names[1]: _form(end, *forms[1])}

    anchor = st.sampled_from([_FIRST, _LAST, _LAST - timedelta(days=30)]) | st.datetimes(_FIRST, _LAST)
    form = st.tuples(st.sampled_from(["", "Z", "+00:00"]), st.sampled_from([" ", "T"]), st.booleans())
    built = st.builds(window, anchor, st.integers(0, 400), st.integers(0, 86_399), st.tuples(form, form))
    return built | st.just({})


@pytest.fixture(scope="module")
def schema_paths() -> dict[str, Any]:
    return {}


@pytest.fixture
def openapi(api_caller, schema_paths) -> dict[str, Any]:
    if not schema_paths:
        response = api_caller.client.get("/docs/openapi.json")
        assert response.status_code == 200
        schema_paths.update(response.json()["paths"])
    return schema_paths


@pytest.fixture
def covered(api_caller):
    """The account's whole history is "synced" (no rows): the store answers unless fresh."""
    for resource in COVERED:
        api_caller.store.cover(resource)
    return api_caller


@pytest.mark.parametrize("method, path", OPERATIONS)
def test_no_parameter_value_answers_a_5xx(covered, openapi, method, path):
    declared = openapi[path][method.lower()].get("parameters", [])
    names = {p["name"] for p in declared}
    window = next((pair for pair in WINDOWS if set(pair) <= names), None)

    def upstream_window(drawn: tuple[dict[str, str], dict[str, str], str]):
        """A request the upstream answers (a live route, or ``fresh=true``) gets a window
        of at most 400 days when its dates are valid: the sandbox computes daily series
        over the whole window, and a millennia-long one would test its speed, not our
        parameters (the store-served answers take windows over the whole range)."""
        params = drawn[0]
        if window is None or ("fresh" in names and params.get("fresh") != "true"):
            return st.just(drawn)
        if any(name in params and not _readable(params[name]) for name in window):
            return st.just(drawn)  # a 400 before any upstream call
        rest = {k: v for k, v in params.items() if k not in window}
        return _short_windows(window).map(lambda dates: ({**rest, **dates}, *drawn[1:]))

    def parameters(valid: bool) -> st.SearchStrategy[tuple[dict[str, str], dict[str, str], str]]:
        query = {p["name"]: _values(p["schema"], valid) for p in declared if p["in"] == "query"}
        in_path = {p["name"]: _values(p["schema"], valid) for p in declared if p["in"] == "path" and p["name"] != "account_id"}
        # Mostly the caller's account (past the gate, so the parameters are parsed), sometimes
        # one the gate must refuse without a 5xx: unknown, zero, negative, past bigint.
        account = st.sampled_from([str(covered.account_id)] * 8 + ["0", "-1", str(BIGINT_MAX), str(BIGINT_MAX + 1), "1" + "0" * 30])
        drawn = st.tuples(st.fixed_dictionaries({}, optional=query), st.fixed_dictionaries(in_path), account)
        return drawn.flatmap(upstream_window)

    @settings(
        max_examples=EXAMPLES_PER_ROUTE, derandomize=True, database=None, deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.booleans().flatmap(parameters))
    def answers_without_5xx(drawn: tuple[dict[str, str], dict[str, str], str]) -> None:
        params, path_values, account = drawn
        url = path.replace("{account_id}", account)
        for name, value in path_values.items():
            url = url.replace("{" + name + "}", quote(value, safe="") or "0")
        if params:
            url += "?" + urlencode(params, quote_via=quote, safe="")
        response = covered.client.request(method, url, headers={"Authorization": f"Bearer {covered.key}"})
        assert response.status_code < 500, (url, response.status_code, response.text[:300])
        if response.status_code >= 400:
            assert "error" in response.json(), (url, response.text[:300])

    answers_without_5xx()
