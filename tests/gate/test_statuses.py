"""Every status the gate answers: its body, its headers and what it costs.

Each test reads the database afterwards: the ledger row (status, credits, debited), the
balance and the window counters, so "charges 1 credit" means the same thing everywhere.
"""

from __future__ import annotations

import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fixtures.api import auth, settle_ledger, usage
from tests.gate.probe import CALLS

ACCOUNT = 42
RATE_HEADERS = (
    "x-ratelimit-limit-minute",
    "x-ratelimit-remaining-minute",
    "x-ratelimit-limit-day",
    "x-ratelimit-remaining-day",
)


@pytest.fixture
def org(make_org, connect_account):
    org_id = make_org(credits=10)
    connect_account(org_id, ACCOUNT)
    return org_id


@pytest.fixture
def key(make_key, org):
    return make_key(org, "admin")


def assert_error(response, status: int, code: str, *words: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "code"}, body  # never the envelope
    assert body["code"] == code
    for word in words:
        assert word in body["error"]


def assert_charged_one(db, org_id: int, client, status: int, *, debited: bool = True) -> None:
    settle_ledger(client)
    state = usage(db, org_id)
    assert state.ledger == [(status, 1, debited)]
    assert state.minute_used == state.day_used == 1
    assert state.balance == (9 if debited else 0)


def assert_recorded_for_nothing(db, org_id: int, client, status: int) -> None:
    """On the ledger with its status, but no credit, no debit and no window counted."""
    settle_ledger(client)
    state = usage(db, org_id)
    assert state.ledger == [(status, 0, False)]
    assert state.minute_used == state.day_used == 0
    assert state.balance == 10


def assert_charged_nothing(db, org_id: int) -> None:
    state = usage(db, org_id)
    assert state.ledger == [] and state.minute_used == 0 and state.day_used == 0
    assert state.balance == 10


# --- 200 ------------------------------------------------------------------------------------


def test_success_answers_the_envelope_with_meta_and_headers_for_one_credit(probe_client, db, org, key):
    response = probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key))

    assert response.status_code == 200
    body = response.json()
    assert body == {
        "data": {"account": ACCOUNT},
        "_meta": {
            "_credits": {"used": 1},
            "_rate_limits": {
                "limit_minute": 1000,
                "remaining_minute": 999,
                "limit_day": 50000,
                "remaining_day": 49999,
            },
        },
    }
    assert "_pagination" not in body  # no next page: no member
    assert [response.headers[h] for h in RATE_HEADERS] == ["1000", "999", "50000", "49999"]
    assert response.headers["x-credits-used"] == "1"
    assert_charged_one(db, org, probe_client, 200)


def test_pagination_is_present_only_when_a_next_page_exists(probe_client, db, org, key):
    response = probe_client.get(f"/v1/{ACCOUNT}/probe?limit=5&more=true", headers=auth(key))

    next_page = urlsplit(response.json()["_pagination"]["next_page"])
    assert next_page.path == f"/v1/{ACCOUNT}/probe"
    assert parse_qs(next_page.query) == {"limit": ["5"], "more": ["true"], "offset": ["5"]}


def test_x_api_key_header_works_like_bearer(probe_client, org, key):
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers={"X-API-Key": key}).status_code == 200


def test_a_route_without_an_account_gets_no_account_check(probe_client, make_org, make_key):
    lone = make_org(credits=1)
    response = probe_client.get("/v1/probe/global", headers=auth(make_key(lone)))
    assert response.status_code == 200 and response.json()["data"] == {"ok": True}


# --- 401 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer not-a-relay-key"},
        {"Authorization": "Bearer crk_live_" + "A" * 43},  # well-formed, unknown
        {"X-API-Key": "crk_live_" + "B" * 43},
    ],
    ids=["none", "empty-bearer", "basic", "malformed", "unknown", "unknown-x-api-key"],
)
def test_missing_malformed_or_unknown_key_is_401_for_no_credit(probe_client, db, org, headers):
    response = probe_client.get(f"/v1/{ACCOUNT}/probe", headers=headers)

    assert_error(response, 401, "unauthenticated", "API key")
    assert "x-ratelimit-limit-minute" not in response.headers
    assert_charged_nothing(db, org)


def test_revoked_key_is_401_at_once(probe_client, db, org, make_key):
    created = make_key(org, full=True)
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(created.secret)).status_code == 200

    from app.admin.service import revoke_key

    revoke_key(db, created.id)
    assert_error(probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(created.secret)), 401, "unauthenticated")
    settle_ledger(probe_client)
    assert len(usage(db, org).ledger) == 1  # only the request before the revocation


def test_two_different_keys_in_one_request_are_401(probe_client, org, key, make_key):
    other = make_key(org)
    response = probe_client.get(f"/v1/{ACCOUNT}/probe", headers={**auth(key), "X-API-Key": other})
    assert_error(response, 401, "unauthenticated")


# --- 429 ------------------------------------------------------------------------------------


def test_full_minute_window_is_429_with_retry_after_for_no_credit(probe_client, db, make_org, make_key, connect_account):
    org_id = make_org(credits=10, limit_minute=2)
    connect_account(org_id, ACCOUNT)
    key = make_key(org_id)
    for _ in range(2):
        assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key)).status_code == 200

    response = probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key))

    assert_error(response, 429, "rate_limited", "rate limit")
    assert 1 <= int(response.headers["retry-after"]) <= 60
    assert response.headers["x-ratelimit-remaining-minute"] == "0"
    assert response.headers["x-credits-used"] == "0"
    settle_ledger(probe_client)
    state = usage(db, org_id)
    assert state.ledger == [(200, 1, True)] * 2 and state.minute_used == 2 and state.balance == 8


def test_full_day_window_is_429_until_the_utc_day_ends(probe_client, db, make_org, make_key, connect_account):
    org_id = make_org(credits=10, limit_day=1)
    connect_account(org_id, ACCOUNT)
    key = make_key(org_id)
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key)).status_code == 200

    response = probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key))

    assert_error(response, 429, "rate_limited")
    assert 1 <= int(response.headers["retry-after"]) <= 86400
    assert response.headers["x-ratelimit-remaining-day"] == "0"
    settle_ledger(probe_client)
    assert usage(db, org_id).day_used == 1


def test_windows_are_shared_by_every_key_of_an_organization(probe_client, make_org, make_key, connect_account):
    org_id = make_org(limit_minute=2)
    connect_account(org_id, ACCOUNT)
    first, second = make_key(org_id), make_key(org_id, "reader")
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(first)).status_code == 200
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(second)).status_code == 200
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(first)).status_code == 429


# --- 403 ------------------------------------------------------------------------------------


def test_role_without_the_routes_permission_is_403_for_one_credit(probe_client, db, org, make_key):
    analytics = make_key(org, "analytics")  # no api_chats_list

    response = probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(analytics))

    assert_error(response, 403, "forbidden", "api_chats_list")
    assert response.headers["x-credits-used"] == "1"
    assert_charged_one(db, org, probe_client, 403)
    assert CALLS == []


# --- 404 ------------------------------------------------------------------------------------


def test_account_of_another_organization_and_unknown_account_get_the_same_404(
    probe_client, db, org, key, make_org, connect_account
):
    other = make_org()
    connect_account(other, 777)

    foreign = probe_client.get("/v1/777/probe", headers=auth(key))
    unknown = probe_client.get("/v1/778/probe", headers=auth(key))

    assert_error(foreign, 404, "account_not_found")
    assert foreign.json()["error"].replace("777", "N") == unknown.json()["error"].replace("778", "N")
    assert foreign.headers.keys() == unknown.headers.keys()
    assert CALLS == []
    settle_ledger(probe_client)
    assert usage(db, org).ledger == [(404, 1, True), (404, 1, True)]


def test_unknown_route_is_a_json_404_for_no_credit(probe_client, db, org, key):
    response = probe_client.get("/v1/42/no-such-thing", headers=auth(key))

    assert_error(response, 404, "route_not_found", "/v1/42/no-such-thing")
    assert_charged_nothing(db, org)


# --- 400 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "parameter", "rule"),
    [
        ("limit=0", "limit", ">= 1"),
        ("limit=101", "limit", "<= 100"),
        ("limit=ten", "limit", "int"),
        ("order=sideways", "order", "recent"),
        ("filter=unread&list_id=3", "filter", "list_id"),
    ],
    ids=["below-range", "above-range", "type", "enumeration", "mutual-exclusion"],
)
def test_invalid_query_value_is_400_naming_parameter_and_rule_for_one_credit(
    probe_client, db, org, key, query, parameter, rule
):
    response = probe_client.get(f"/v1/{ACCOUNT}/probe?{query}", headers=auth(key))

    assert_error(response, 400, "invalid_parameter", repr(parameter), rule)
    assert_charged_one(db, org, probe_client, 400)


# --- 402 ------------------------------------------------------------------------------------


def test_spent_balance_is_402_for_one_credit_not_debited(probe_client, db, make_org, make_key, connect_account):
    org_id = make_org(credits=1)
    connect_account(org_id, ACCOUNT)
    key = make_key(org_id)
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key)).status_code == 200

    response = probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key))

    assert_error(response, 402, "credits_exhausted", "credit")
    assert response.headers["x-credits-used"] == "1"
    assert CALLS == ["probe"]  # the refused request never reached the handler
    settle_ledger(probe_client)
    state = usage(db, org_id)
    assert state.ledger == [(200, 1, True), (402, 1, False)]
    assert state.balance == 0 and state.minute_used == 2


def test_added_credits_lift_the_402(probe_client, db, make_org, make_key, connect_account):
    from app.admin.service import add_credits

    org_id = make_org(credits=0)
    connect_account(org_id, ACCOUNT)
    key = make_key(org_id)
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key)).status_code == 402
    add_credits(db, org_id, 1)
    assert probe_client.get(f"/v1/{ACCOUNT}/probe", headers=auth(key)).status_code == 200


# --- 413 ------------------------------------------------------------------------------------


def test_body_over_the_limit_is_413_for_one_credit(probe_client, db, org, key, api_settings):
    too_big = b"x" * (api_settings.max_body_bytes + 1)

    response = probe_client.post(f"/v1/{ACCOUNT}/probe/read", content=too_big, headers=auth(key))

    assert_error(response, 413, "body_too_large", str(api_settings.max_body_bytes))
    assert CALLS == []
    assert_charged_one(db, org, probe_client, 413)


def test_body_within_the_limit_passes(probe_client, org, key, api_settings):
    body = b"x" * api_settings.max_body_bytes
    assert probe_client.post(f"/v1/{ACCOUNT}/probe/read", content=body, headers=auth(key)).status_code == 201


def test_chunked_body_over_the_limit_is_413(probe_client, org, key, api_settings):
    def chunks():
        for _ in range(api_settings.max_body_bytes // 100 + 2):
            yield b"y" * 100

    response = probe_client.post(f"/v1/{ACCOUNT}/probe/read", content=chunks(), headers=auth(key))
    assert_error(response, 413, "body_too_large")


# --- 424 ------------------------------------------------------------------------------------


def test_unreachable_upstream_is_424_for_one_credit(probe_client, db, org, key):
    # api_settings point the upstream client at a port nothing listens on.
    response = probe_client.get(f"/v1/{ACCOUNT}/probe/upstream", headers=auth(key))

    assert_error(response, 424, "upstream_unavailable", "upstream unavailable")
    assert_charged_one(db, org, probe_client, 424)


# --- 5xx ------------------------------------------------------------------------------------


def test_a_bug_is_a_bare_500_that_shows_no_internals_and_costs_nothing(probe_client, db, org, key):
    response = probe_client.get(f"/v1/{ACCOUNT}/probe/boom", headers=auth(key))

    assert_error(response, 500, "internal_error")
    assert response.json()["error"] == "internal server error"
    for secret in ("hunter2", "/srv/app", "Traceback", "RuntimeError"):
        assert secret not in response.text
    assert response.headers["x-credits-used"] == "0"
    assert_recorded_for_nothing(db, org, probe_client, 500)


# --- keys are never stored in clear -----------------------------------------------------------


def test_no_key_is_stored_in_clear(db, make_org, make_key):
    created = make_key(make_org(), full=True)

    rows = db.execute("SELECT * FROM api_keys").fetchall()
    stored = " ".join(str(value) for row in rows for value in row)
    assert created.secret not in stored
    assert created.secret[12:] not in stored  # not even the random part
    (digest, prefix) = db.execute("SELECT key_hash, prefix FROM api_keys").fetchone()
    assert bytes(digest) == hashlib.sha256(created.secret.encode()).digest()
    assert created.secret.startswith(prefix) and len(prefix) == 15
