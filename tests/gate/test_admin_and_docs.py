"""The admin CLI and the OpenAPI documentation."""

from __future__ import annotations

from click.testing import CliRunner

from app.cli import main
from app.gate.keys import KEY_PATTERN
from tests.fixtures.api import auth


def relay(database_url: str, *args: str):
    result = CliRunner().invoke(main, list(args), env={"RELAY_DATABASE_URL": database_url})
    return result


def test_admin_cli_creates_org_key_account_and_credits_and_revokes(db, database_url, api_client):
    assert relay(database_url, "orgs", "create", "acme", "--credits", "5").exit_code == 0
    created = relay(database_url, "keys", "create", "--org", "acme", "--role", "reader")
    assert created.exit_code == 0, created.output
    key = created.stdout.strip()
    assert KEY_PATTERN.fullmatch(key)
    assert relay(database_url, "accounts", "connect", "--org", "acme", "--account-id", "55", "--token", "t").exit_code == 0
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
    assert relay(database_url, "accounts", "connect", "--org", "one", "--account-id", "9", "--token", "t").exit_code == 0
    refused = relay(database_url, "accounts", "connect", "--org", "two", "--account-id", "9", "--token", "t")
    assert refused.exit_code != 0 and "another organization" in refused.output


def test_openapi_documents_permission_parameters_bounds_and_errors(api_client):
    schema = api_client.get("/docs/openapi.json").json()
    chats = schema["paths"]["/v1/{account_id}/chats"]["get"]

    assert "`api_chats_list`" in chats["description"]
    assert {"400", "401", "402", "403", "404", "424", "429", "500"} <= set(chats["responses"])
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


def test_gated_routes_resolve_their_dependencies_one_at_a_time(api_app):
    """``install_gate`` splits Litestar's dependency levels (no anyio task group per request)."""
    from litestar.routes import HTTPRoute

    checked = 0
    for route in api_app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler, kwargs_model in route.route_handler_map.values():
            if handler.opt.get("permission") is not None:
                assert all(len(batch) == 1 for batch in kwargs_model.dependency_batches), route.path
                checked += len(kwargs_model.dependency_batches) > 1
    assert checked  # the store-served routes have several dependencies
