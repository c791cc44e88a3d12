"""The admin CLI and the OpenAPI documentation."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from app.cli import main
from app.gate.keys import KEY_PATTERN
from tests.fixtures.api import auth
from tests.fixtures.database import TEST_KEYS_ENV


def relay(database_url: str, *args: str):
    result = CliRunner().invoke(main, list(args), env={"RELAY_DATABASE_URL": database_url, **TEST_KEYS_ENV})
    return result


def test_admin_cli_creates_org_key_account_and_credits_and_revokes(db, database_url, api_client):
    assert relay(database_url, "orgs", "create", "acme", "--credits", "5").exit_code == 0
    created = relay(database_url, "keys", "create", "--org", "acme", "--role", "reader")
    assert created.exit_code == 0, created.output
    key = created.stdout.strip()
    assert KEY_PATTERN.fullmatch(key)
    assert relay(database_url, "accounts", "connect", "--org", "acme", "--account-id", "55", "--token", "t", "--no-check").exit_code == 0
    added = relay(database_url, "credits", "add", "--org", "acme", "10")
    assert "balance 15" in added.output

    response = api_client.get("/v1/55/vault/media/processing", headers=auth(key))
    assert response.status_code != 401 and response.json().get("code") != "account_not_found"

    (key_id,) = db.execute("SELECT id FROM api_keys").fetchone()
    assert relay(database_url, "keys", "revoke", str(key_id)).exit_code == 0
    assert api_client.get("/v1/55/vault/media/processing", headers=auth(key)).status_code == 401


def test_admin_cli_refuses_an_account_owned_by_another_organization(db, database_url):
    relay(database_url, "orgs", "create", "one")
    relay(database_url, "orgs", "create", "two")
    assert relay(database_url, "accounts", "connect", "--org", "one", "--account-id", "9", "--token", "t", "--no-check").exit_code == 0
    refused = relay(database_url, "accounts", "connect", "--org", "two", "--account-id", "9", "--token", "t", "--no-check")
    assert refused.exit_code != 0 and "another organization" in refused.output


def test_openapi_documents_permission_parameters_bounds_and_errors(api_client):
    schema = api_client.get("/docs/openapi.json").json()
    chats = schema["paths"]["/v1/{account_id}/chats"]["get"]

    assert "`api_chats_list`" in chats["description"]
    assert {"400", "401", "402", "403", "404", "409", "424", "429", "500"} <= set(chats["responses"])
    # 409 (a disconnected account) only where the route names an account
    assert "409" not in schema["paths"]["/v1/gifs/trending"]["get"]["responses"]
    limit = next(p for p in chats["parameters"] if p["name"] == "limit")
    assert (limit["schema"]["minimum"], limit["schema"]["maximum"]) == (1, 100)
    assert {"BearerAuth", "ApiKeyAuth"} <= set(schema["components"]["securitySchemes"])
    for path, operations in schema["paths"].items():
        if path.startswith("/v1/"):
            for operation in operations.values():
                assert "Permission: `api_" in operation["description"], path


def test_interactive_documentation_page_is_served_without_a_key(api_client):
    page = api_client.get("/docs")
    assert page.status_code == 200 and "swagger" in page.text.lower()


def test_an_undeclared_v1_route_stops_the_app_from_starting(api_settings):
    """A /v1/ route not declared with v1_get/v1_post would skip the gate's checks: refused."""
    from litestar import get
    from litestar.exceptions import ImproperlyConfiguredException
    from litestar.params import FromPath

    from app.asgi import create_app
    from app.gate import refuse_ungated_routes

    @get("/v1/{account_id:int}/ungated", opt={"permission": "api_chats_list"})
    async def ungated(account_id: FromPath[int]) -> dict:
        return {"data": account_id}

    app = create_app(api_settings)
    assert refuse_ungated_routes in app.on_startup
    refuse_ungated_routes(app)  # the production routes pass
    app.register(ungated)
    with pytest.raises(ImproperlyConfiguredException, match="ungated"):
        refuse_ungated_routes(app)


def test_a_route_naming_an_unknown_permission_is_refused_at_declaration():
    from litestar.exceptions import ImproperlyConfiguredException

    from app.gate import v1_get

    with pytest.raises(ImproperlyConfiguredException, match="api_nothing"):
        v1_get("/v1/{account_id:int}/x", permission="api_nothing")
