"""relay orgs|keys|accounts|credits on a fresh database: listings (tables and --json), key
rotation with an overlap the gate honours, disconnect and reconnect."""

from __future__ import annotations

import json

import psycopg
import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.migrate import upgrade
from app.gate.keys import KEY_PATTERN
from tests.fixtures.api import auth
from tests.fixtures.database import TEST_KEYS_ENV


@pytest.fixture(scope="module")
def fresh_url(empty_database):
    with empty_database() as url:
        upgrade(url)
        yield url


def relay(url: str, *args: str) -> str:
    result = CliRunner().invoke(main, list(args), env={"RELAY_DATABASE_URL": url, **TEST_KEYS_ENV})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_listings_work_on_a_fresh_database_and_show_what_was_created(fresh_url):
    assert relay(fresh_url, "orgs", "list").strip() == "(none)"
    assert json.loads(relay(fresh_url, "keys", "list", "--json")) == []
    assert relay(fresh_url, "accounts", "list").strip() == "(none)"

    relay(fresh_url, "orgs", "create", "acme", "--credits", "7", "--limit-minute", "60")
    key = relay(fresh_url, "keys", "create", "--org", "acme", "--role", "reader", "--name", "ci").strip()
    relay(fresh_url, "accounts", "connect", "--org", "acme", "--account-id", "501", "--token", "secret-t", "--no-check")

    orgs = json.loads(relay(fresh_url, "orgs", "list", "--json"))
    assert [(o["name"], o["limit_minute"], o["credit_balance"], o["active_keys"], o["accounts"]) for o in orgs] == [
        ("acme", 60, 7, 1, 1)
    ]
    table = relay(fresh_url, "orgs", "list").splitlines()
    assert table[0].split()[:3] == ["id", "name", "limit_minute"] and "acme" in table[1]

    keys = json.loads(relay(fresh_url, "keys", "list", "--json"))
    assert [(k["organization"], k["role"], k["name"], k["state"]) for k in keys] == [("acme", "reader", "ci", "active")]
    assert key.startswith(keys[0]["prefix"]) and key not in relay(fresh_url, "keys", "list", "--json")

    accounts = json.loads(relay(fresh_url, "accounts", "list", "--json"))
    assert [(a["id"], a["organization"], a["status"]) for a in accounts] == [(501, "acme", "active")]
    assert "secret-t" not in relay(fresh_url, "accounts", "list", "--json")

    shown = json.loads(relay(fresh_url, "orgs", "show", "acme", "--json"))
    assert shown["name"] == "acme" and shown["requests_today"] == 0
    assert [k["prefix"] for k in shown["keys"]] == [keys[0]["prefix"]] and shown["accounts"][0]["id"] == 501
    assert "accounts:" in relay(fresh_url, "orgs", "show", "acme")

    credits = json.loads(relay(fresh_url, "credits", "show", "--org", "acme", "--json"))
    assert (credits["balance"], credits["granted"], credits["debited"]) == (7, 7, 0)


def test_a_rotated_key_works_through_the_overlap_then_the_gate_refuses_it(db, database_url, api_client):
    relay(database_url, "orgs", "create", "rot", "--credits", "100")
    old = relay(database_url, "keys", "create", "--org", "rot", "--role", "admin", "--name", "svc").strip()
    (old_id,) = db.execute("SELECT id FROM api_keys").fetchone()
    path = "/v1/gifs/trending"

    new = relay(database_url, "keys", "rotate", str(old_id), "--overlap", "1h").strip()
    assert KEY_PATTERN.fullmatch(new) and new != old
    listed = {k["id"]: k for k in json.loads(relay(database_url, "keys", "list", "--org", "rot", "--json"))}
    assert listed[old_id]["state"] == "expiring" and listed[old_id]["expires_at"] is not None
    (fresh,) = [k for k in listed.values() if k["id"] != old_id]
    assert (fresh["role"], fresh["name"], fresh["state"]) == ("admin", "svc", "active")
    # Both keys pass the gate during the overlap (the trending GIFs need a connected account: 
    # anything but 401 proves the key was accepted).
    assert api_client.get(path, headers=auth(old)).status_code != 401
    assert api_client.get(path, headers=auth(new)).status_code != 401

    db.execute("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = %s", (old_id,))
    assert api_client.get(path, headers=auth(old)).status_code == 401
    assert api_client.get(path, headers=auth(new)).status_code != 401
    listed = {k["id"]: k["state"] for k in json.loads(relay(database_url, "keys", "list", "--json"))}
    assert listed[old_id] == "expired"
    refused = CliRunner().invoke(main, ["keys", "rotate", str(old_id)], env={"RELAY_DATABASE_URL": database_url, **TEST_KEYS_ENV})
    assert refused.exit_code != 0 and "no active key" in refused.output


def test_disconnect_pauses_an_account_and_reconnect_sets_a_new_credential(db, database_url, keyring):
    relay(database_url, "orgs", "create", "acc")
    relay(database_url, "accounts", "connect", "--org", "acc", "--account-id", "77", "--token", "old-token", "--no-check")
    db.execute("UPDATE accounts SET status = 'credentials_rejected' WHERE id = 77")
    db.execute(
        "INSERT INTO sync_tasks (account_id, resource, due_at, failures) "
        "VALUES (77, 'earnings', now() + interval '1 hour', 3)"
    )

    relay(database_url, "accounts", "reconnect", "77", "--token", "new-token", "--no-check")
    status, token = db.execute("SELECT status, upstream_token FROM accounts WHERE id = 77").fetchone()
    assert (status, keyring.decrypt(token)) == ("active", "new-token")
    due_now, failures = db.execute(
        "SELECT due_at <= now(), failures FROM sync_tasks WHERE account_id = 77"
    ).fetchone()
    assert due_now and failures == 0

    relay(database_url, "accounts", "disconnect", "77")
    assert json.loads(relay(database_url, "accounts", "list", "--json"))[0]["status"] == "paused"
    missing = CliRunner().invoke(main, ["accounts", "disconnect", "78"], env={"RELAY_DATABASE_URL": database_url, **TEST_KEYS_ENV})
    assert missing.exit_code != 0 and "no account 78" in missing.output
    with pytest.raises(psycopg.errors.CheckViolation):
        db.execute("UPDATE accounts SET status = 'gone' WHERE id = 77")
