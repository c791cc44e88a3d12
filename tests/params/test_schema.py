"""The OpenAPI schema shows every parameter's rule: integers their bounds, dates their pattern."""

from __future__ import annotations

from app.params import BIGINT_MAX, TIMESTAMP_PATTERN, UNIX_MAX


def _operations(client):
    paths = client.get("/docs/openapi.json").json()["paths"]
    for path, item in paths.items():
        for method, operation in item.items():
            if path.startswith("/v1/"):
                yield f"{method.upper()} {path}", operation


def _options(schema: dict) -> list[dict]:
    shared = {key: value for key, value in schema.items() if key != "oneOf"}
    return [{**shared, **option} for option in schema.get("oneOf", [schema]) if option.get("type") != "null"]


def test_every_integer_parameter_shows_bounds_within_bigint(api_client):
    seen = set()
    for name, operation in _operations(api_client):
        for parameter in operation.get("parameters", []):
            for option in _options(parameter["schema"]):
                if option.get("type") == "integer":
                    seen.add(parameter["name"])
                    assert "minimum" in option and "maximum" in option, (name, parameter)
                    assert -(2**63) <= option["minimum"] and option["maximum"] <= BIGINT_MAX, (name, parameter)
    assert {"account_id", "link_id", "offset", "limit", "list_id", "from_id", "marker"} <= seen


def test_every_path_account_id_is_declared_with_its_bounds(api_client):
    for name, operation in _operations(api_client):
        if "{account_id}" in name:
            (account,) = [p for p in operation["parameters"] if p["name"] == "account_id"]
            assert (account["schema"]["minimum"], account["schema"]["maximum"]) == (1, BIGINT_MAX), name


def test_every_free_string_parameter_has_a_pattern_or_an_enumeration(api_client):
    for name, operation in _operations(api_client):
        for parameter in operation.get("parameters", []):
            for option in _options(parameter["schema"]):
                if option.get("type") == "string":
                    assert "pattern" in option or "enum" in option, (name, parameter["name"])


def test_dates_show_their_accepted_forms_and_markers_the_range(api_client):
    operations = dict(_operations(api_client))
    earnings = {p["name"]: p for p in operations["GET /v1/{account_id}/earnings"]["parameters"]}
    assert earnings["start_date"]["schema"]["pattern"] == TIMESTAMP_PATTERN
    assert _options(earnings["marker"]["schema"])[0]["maximum"] == UNIX_MAX
    stats = {p["name"] for p in operations["GET /v1/{account_id}/tracking-links/{link_id}/stats"]["parameters"]}
    assert {"date_start", "date_end"} <= stats
    chats = operations["GET /v1/{account_id}/chats"]["description"]
    assert "mutually exclusive" in chats  # cross-parameter rules are in the description
