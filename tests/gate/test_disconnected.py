"""A disconnected account (``relay accounts disconnect``) is off: every route that names it
answers 409 ``account_disconnected`` with no store read and no upstream call, until it is
reconnected.

Parametrized over every ``/v1/{account_id}`` route the production app registers (like
``test_tenancy``), against the sandbox, whose request counts prove that nothing reached it.
"""

from __future__ import annotations

import pytest

from app.admin.service import disconnect_account, reconnect_account
from app.settings import Settings
from tests.fixtures.api import auth, on_sandbox, settle_ledger, usage
from tests.fixtures.sandbox import fresh_account_id
from tests.gate.test_keeper import heard, wait_for_listener
from tests.gate.test_tenancy import ACCOUNT_ROUTES, concrete_path


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return on_sandbox(settings, sandbox)


@pytest.fixture
def disconnected(make_org, make_key, connect_account, db):
    """(admin key, organization id, account id) of an organization whose one account is
    disconnected."""
    org_id = make_org()
    account_id = fresh_account_id()
    connect_account(org_id, account_id)
    disconnect_account(db, account_id)
    return make_key(org_id, "admin"), org_id, account_id


def upstream_calls(sandbox, account_id: int) -> int:
    return sum(sandbox.requests(account_id)["requests"].values())


@pytest.mark.parametrize(
    ("method", "path", "handler"), ACCOUNT_ROUTES, ids=[f"{m} {p}" for m, p, _ in ACCOUNT_ROUTES]
)
def test_every_route_naming_a_disconnected_account_is_409_without_an_upstream_call(
    api_client, sandbox, disconnected, method, path, handler
):
    key, _, account_id = disconnected

    answer = api_client.request(method, concrete_path(path, handler, account_id), headers=auth(key))

    assert answer.status_code == 409, answer.text
    assert answer.json() == {
        "error": f"account {account_id} is disconnected: an operator turns it back on with "
                 "'relay accounts reconnect'",
        "code": "account_disconnected",
    }
    assert upstream_calls(sandbox, account_id) == 0


def test_the_refusal_costs_a_credit_like_a_404_and_reconnecting_turns_the_account_back_on(
    api_client, db, sandbox, keyring, disconnected
):
    key, org_id, account_id = disconnected
    path = f"/v1/{account_id}/chats"

    refused = api_client.get(path, headers=auth(key))
    assert refused.status_code == 409 and refused.headers["x-credits-used"] == "1"
    settle_ledger(api_client)
    assert usage(db, org_id).ledger == [(409, 1, True)]

    wait_for_listener(api_client)
    heard(api_client, lambda: reconnect_account(db, account_id, None, keyring=keyring))
    assert api_client.get(path, headers=auth(key)).status_code == 200
    assert upstream_calls(sandbox, account_id) == 1


def test_an_account_less_route_never_borrows_a_disconnected_accounts_credential(
    api_client, sandbox, disconnected
):
    key, _, account_id = disconnected

    answer = api_client.get("/v1/gifs/trending", headers=auth(key))

    assert (answer.status_code, answer.json()["code"]) == (424, "no_connected_account")
    assert upstream_calls(sandbox, account_id) == 0
