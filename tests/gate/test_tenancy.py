"""No route lets a key of organization A see anything of organization B's accounts.

Parametrized over every ``/v1/`` route the production app registers, so a route added
later is covered without touching this file. A's key has the ``admin`` role (every
permission), so the only thing between it and B's account is the account check.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.asgi import create_app
from app.errors import handler_annotations, literal_values
from app.gate.route import gated_handlers
from app.settings import Settings
from tests.fixtures.api import auth
from tests.fixtures.database import TEST_SECRET_KEYS

A_ACCOUNT, B_ACCOUNT, NOBODYS_ACCOUNT = 1001, 2002, 3003
B_TOKEN = "b-secret-upstream-token"
_PARAM = re.compile(r"\{(\w+)(?::(\w+))?\}")


def _routes() -> list[tuple[str, str, Any]]:
    app = create_app(Settings(database_url="postgresql://unused@127.0.0.1:1/unused", secret_keys=TEST_SECRET_KEYS))
    return [
        (method, path, handler)
        for path, handler in gated_handlers(app)
        for method in sorted(handler.http_methods)
    ]


ROUTES = _routes()
ACCOUNT_ROUTES = [(m, p, h) for m, p, h in ROUTES if "{account_id" in p]


def concrete_path(path: str, handler: Any, account_id: int) -> str:
    """The template with the account filled in and valid values for other path parameters."""

    def value(match: re.Match) -> str:
        name, kind = match.group(1), match.group(2)
        if name == "account_id":
            return str(account_id)
        annotation = handler_annotations(handler.fn).get(name)
        allowed = literal_values(annotation) if annotation is not None else []
        return allowed[0] if allowed else ("1" if kind == "int" else "x")

    return _PARAM.sub(value, path)


@pytest.fixture
def tenants(make_org, make_key, connect_account):
    a, b = make_org("tenant-a"), make_org("tenant-b")
    connect_account(a, A_ACCOUNT)
    connect_account(b, B_ACCOUNT, token=B_TOKEN)
    return make_key(a, "admin")


def test_the_app_registers_account_routes():
    # The tenancy test below is only as good as the routes it sees.
    assert ACCOUNT_ROUTES, "no /v1/{account_id} route is registered"


@pytest.mark.parametrize(
    ("method", "path", "handler"), ACCOUNT_ROUTES, ids=[f"{m} {p}" for m, p, _ in ACCOUNT_ROUTES]
)
def test_a_key_of_one_organization_gets_nothing_of_anothers_account(api_client, tenants, method, path, handler):
    key = tenants

    foreign = api_client.request(method, concrete_path(path, handler, B_ACCOUNT), headers=auth(key))
    nobodys = api_client.request(method, concrete_path(path, handler, NOBODYS_ACCOUNT), headers=auth(key))
    own = api_client.request(method, concrete_path(path, handler, A_ACCOUNT), headers=auth(key))

    # B's account answers exactly like an account that exists nowhere: nothing leaks.
    assert foreign.status_code == nobodys.status_code == 404
    assert foreign.json()["code"] == "account_not_found"
    assert foreign.json()["error"].replace(str(B_ACCOUNT), "N") == nobodys.json()["error"].replace(
        str(NOBODYS_ACCOUNT), "N"
    )
    assert set(foreign.json()) == {"error", "code"}
    assert B_TOKEN not in foreign.text
    # A's own account passes the account check (whatever the route then answers).
    assert own.status_code != 404 or own.json()["code"] != "account_not_found"


def test_every_v1_route_declares_a_permission_the_spec_names():
    from app.permissions import PERMISSIONS

    for _, path, handler in ROUTES:
        assert handler.opt["permission"] in PERMISSIONS, path
