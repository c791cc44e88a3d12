"""Every live route answers 424, charging 1 credit, with a message that says what failed:
the upstream being down (sandbox fault injection) or rejecting the account's credentials."""

from __future__ import annotations

import pytest

from tests.fixtures.api import error_of

#: (method, our path, the upstream path prefix the fault rule matches)
ROUTES = [
    ("GET", "/v1/{account}/chats", None),
    ("GET", "/v1/{account}/lists", None),
    ("GET", "/v1/{account}/direct-messages", None),
    ("GET", "/v1/{account}/earnings/overview", None),
    ("GET", "/v1/{account}/reach/profile-visitors", None),
    ("GET", "/v1/{account}/reach/promotions", None),
    ("GET", "/v1/{account}/promotions-trials", None),
    ("GET", "/v1/{account}/vault/media/processing", None),
    ("GET", "/v1/{account}/vault/lists", None),
    ("GET", "/v1/{account}/schedules/later/chat", None),
    ("GET", "/v1/{account}/notifications", None),
    ("POST", "/v1/{account}/notifications/tip/read", None),
    ("GET", "/v1/gifs/trending", "/api/gifs/"),
]
IDS = [f"{method} {path}" for method, path, _ in ROUTES]


def call(api_caller, method: str, path: str):
    return api_caller.get(path) if method == "GET" else api_caller.post(path)


def balance(db, org_id: int) -> int:
    return db.execute("SELECT credit_balance FROM organizations WHERE id = %s", (org_id,)).fetchone()[0]


@pytest.mark.parametrize(("method", "path", "prefix"), ROUTES, ids=IDS)
def test_upstream_outage_is_a_424_that_says_the_upstream_is_unavailable(api_caller, sandbox, db, method, path, prefix):
    # Every attempt the client makes (2 in these tests) meets a 503.
    scope = {"path_prefix": prefix} if prefix else {"account_id": api_caller.account_id}
    sandbox.add_fault("status", count=10, status=503, **scope)
    before = balance(db, api_caller.org_id)
    message = error_of(call(api_caller, method, path), 424, credits=1)
    assert "upstream unavailable" in message and "503" in message
    assert balance(db, api_caller.org_id) == before - 1


@pytest.mark.parametrize(("method", "path", "prefix"), ROUTES, ids=IDS)
def test_rejected_credentials_are_a_424_that_says_so(api_caller, sandbox, db, method, path, prefix):
    sandbox.reject_credentials(api_caller.account_id)
    before = balance(db, api_caller.org_id)
    message = error_of(call(api_caller, method, path), 424, credits=1)
    assert "rejected" in message and "credentials" in message
    assert balance(db, api_caller.org_id) == before - 1


def test_a_truncated_answer_is_a_424_too(api_caller, sandbox):
    sandbox.add_fault("truncate", count=10, account_id=api_caller.account_id)
    assert "upstream unavailable" in error_of(api_caller.get("/v1/{account}/chats"), 424, credits=1)


def test_the_route_answers_again_once_the_upstream_recovers(api_caller, sandbox):
    sandbox.add_fault("status", count=2, status=502, account_id=api_caller.account_id)
    error_of(api_caller.get("/v1/{account}/chats"), 424, credits=1)
    assert api_caller.ok("/v1/{account}/chats")["data"]["list"]
