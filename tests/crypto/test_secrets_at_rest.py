"""Secrets at rest: upstream credentials and webhook signing secrets are stored encrypted with
the keys of RELAY_SECRET_KEYS (or the embedded default's key file), rotated by
``relay secrets rotate``, and never shown back (docs/operations.md, "Secrets at rest")."""

from __future__ import annotations

import os
import socket
import stat

import psycopg
import pytest
from click.testing import CliRunner

from app.cli import main
from app.crypto.keyring import Keyring, SecretsError, is_encrypted, key_file, key_list, load_keyring
from app.crypto.keys import generate_key
from app.db.migrate import downgrade, upgrade
from app.setting_values import SettingsError
from app.settings import Settings
from sync.cli import run_until_idle
from tests.fixtures.api import auth, on_sandbox
from tests.fixtures.database import TEST_KEYS_ENV
from tests.fixtures.net import wait_for
from tests.sync.conftest import sync_settings  # noqa: F401 - fixture reused

ACCOUNT = 7391
TOKEN = f"sandbox-{ACCOUNT}"  # what the sandbox accepts for ACCOUNT
# Column types a secret could be written into.
TEXT_TYPES = ("text", "character varying", "character", "json", "jsonb", "ARRAY")


def relay(database_url: str, *args: str, keys: str = TEST_KEYS_ENV["RELAY_SECRET_KEYS"]):
    # Private addresses allowed: the endpoints added here point at 127.0.0.1.
    return CliRunner().invoke(main, list(args), env={"RELAY_DATABASE_URL": database_url, "RELAY_SECRET_KEYS": keys,
                                                     "RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true"})


def ok(result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return on_sandbox(settings, sandbox)


def occurrences(conn: psycopg.Connection, secret: str) -> list[str]:
    """Every (table.column) of the database holding ``secret`` in clear: text, character, json,
    jsonb and array columns as text, bytea columns as bytes."""
    columns = conn.execute(
        """
        SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
        JOIN pg_tables t ON t.schemaname = c.table_schema AND t.tablename = c.table_name
        WHERE c.table_schema = 'public' AND (c.data_type = ANY(%s) OR c.data_type = 'bytea')
        """,
        (list(TEXT_TYPES),),
    ).fetchall()
    assert ("accounts", "upstream_token", "text") in columns  # the scan reaches the secrets' own columns
    found = []
    for table, column, kind in columns:
        if kind == "bytea":
            sql = f'SELECT count(*) FROM "{table}" WHERE position(%s::bytea IN "{column}") > 0'
            value: object = secret.encode()
        else:
            sql = f'SELECT count(*) FROM "{table}" WHERE strpos("{column}"::text, %s) > 0'
            value = secret
        if conn.execute(sql, (value,)).fetchone()[0]:
            found.append(f"{table}.{column}")
    return found


def test_no_credential_or_signing_secret_is_in_clear_in_any_table(
    db, database_url, sandbox, sync_settings, api_client, keyring  # noqa: F811
):
    """Connected and used by the API and a sync, the credential and the webhook secret appear
    in no column of any table, nor in the admin listings."""
    ok(relay(database_url, "orgs", "create", "vault", "--credits", "10"))
    ok(relay(database_url, "accounts", "connect", "--org", "vault", "--account-id", str(ACCOUNT), "--token", TOKEN, "--no-check"))
    added = ok(relay(database_url, "webhooks", "add", "--org", "vault", "--url", "http://127.0.0.1:9/hook"))
    secret = added.strip().splitlines()[-1]
    assert secret.startswith("whsec_")
    key = ok(relay(database_url, "keys", "create", "--org", "vault", "--role", "admin")).strip().splitlines()[-1]

    # The API decrypts the credential to call the upstream, the worker to sync.
    answer = api_client.get(f"/v1/{ACCOUNT}/chats", params={"limit": 1}, headers=auth(key))
    assert answer.status_code == 200, answer.text
    sandbox.configure_account(ACCOUNT, earnings=40, history_days=5)
    run_until_idle(sync_settings, only=[(ACCOUNT, "earnings")])
    assert db.execute("SELECT count(*) FROM earnings WHERE account_id = %s", (ACCOUNT,)).fetchone()[0] > 0

    for clear in (TOKEN, secret, secret.removeprefix("whsec_")):
        assert occurrences(db, clear) == [], clear
    (stored_token,) = db.execute("SELECT upstream_token FROM accounts WHERE id = %s", (ACCOUNT,)).fetchone()
    (stored_secret,) = db.execute("SELECT secret FROM webhook_endpoints").fetchone()
    assert is_encrypted(stored_token) and keyring.decrypt(stored_token) == TOKEN
    assert is_encrypted(stored_secret) and keyring.decrypt(stored_secret) == secret
    listings = ok(relay(database_url, "accounts", "list", "--json")) + ok(relay(database_url, "webhooks", "list"))
    for value in (TOKEN, secret, stored_token, stored_secret):
        assert value not in listings


def test_the_migration_encrypts_clear_rows_and_its_downgrade_decrypts_them(empty_database):
    keyring = Keyring([generate_key()])
    with empty_database() as url, psycopg.connect(url, autocommit=True) as conn:
        upgrade(url, "0008_request_ids_key_expiry")
        conn.execute("INSERT INTO organizations (id, name, limit_minute, limit_day) VALUES (1, 'o', 1, 1)")
        already = keyring.encrypt("sandbox-3")  # written by a newer process: left as it is
        conn.execute("INSERT INTO accounts (id, organization_id, upstream_token) "
                     "VALUES (1, 1, 'sandbox-1'), (2, 1, 'sandbox-2'), (3, 1, %s)", (already,))
        conn.execute("INSERT INTO webhook_endpoints (organization_id, url, secret, cursor_tx, cursor_id) "
                     "VALUES (1, 'http://x', 'whsec_clear', 0, 0)")

        def stored() -> list[str]:
            rows = conn.execute("SELECT upstream_token FROM accounts ORDER BY id").fetchall()
            return [r[0] for r in rows] + [conn.execute("SELECT secret FROM webhook_endpoints").fetchone()[0]]

        upgrade(url, keyring=keyring)
        encrypted = stored()
        assert all(map(is_encrypted, encrypted)) and encrypted[2] == already
        assert [keyring.decrypt(v) for v in encrypted] == ["sandbox-1", "sandbox-2", "sandbox-3", "whsec_clear"]
        assert occurrences(conn, "sandbox-1") == [] and occurrences(conn, "whsec_clear") == []

        downgrade(url, "0008_request_ids_key_expiry", keyring=keyring)
        assert stored() == ["sandbox-1", "sandbox-2", "sandbox-3", "whsec_clear"]
        upgrade(url, keyring=keyring)
        assert [keyring.decrypt(v) for v in stored()] == ["sandbox-1", "sandbox-2", "sandbox-3", "whsec_clear"]


def test_rotate_reencrypts_under_the_new_key_so_the_old_one_can_go(db, database_url):
    old, new = generate_key(), generate_key()
    ok(relay(database_url, "orgs", "create", "rot", keys=old))
    for account_id in (11, 12, 13):
        ok(relay(database_url, "accounts", "connect", "--org", "rot", "--account-id", str(account_id),
                 "--token", f"sandbox-{account_id}", "--no-check", keys=old))
    ok(relay(database_url, "webhooks", "add", "--org", "rot", "--url", "http://127.0.0.1:9/h", keys=old))

    first = ok(relay(database_url, "secrets", "rotate", "--batch", "2", keys=f"{new},{old}"))
    assert "accounts.upstream_token: 3 of 3 re-encrypted" in first
    assert "webhook_endpoints.secret: 1 of 1 re-encrypted" in first
    only_new = Keyring([new])
    tokens = [r[0] for r in db.execute("SELECT upstream_token FROM accounts ORDER BY id")]
    assert [only_new.decrypt(t) for t in tokens] == ["sandbox-11", "sandbox-12", "sandbox-13"]
    assert only_new.decrypt(db.execute("SELECT secret FROM webhook_endpoints").fetchone()[0]).startswith("whsec_")

    again = ok(relay(database_url, "secrets", "rotate", keys=new))  # the old key is gone now
    assert "accounts.upstream_token: 0 of 3 re-encrypted" in again
    runs = db.execute("SELECT details FROM maintenance_runs WHERE job = 'secrets_rotate' ORDER BY id").fetchall()
    assert [[c["rewritten"] for c in d["columns"]] for (d,) in runs] == [[3, 1], [0, 0]]

    # A row no key opens: named by id, left as it is, and the command fails.
    foreign = Keyring([generate_key()]).encrypt("sandbox-14")
    db.execute("INSERT INTO accounts (id, organization_id, upstream_token) "
               "SELECT 14, id, %s FROM organizations WHERE name = 'rot'", (foreign,))
    failed = relay(database_url, "secrets", "rotate", keys=new)
    assert failed.exit_code == 1 and "accounts 14" in failed.output
    assert foreign not in failed.output and "sandbox-14" not in failed.output


@pytest.mark.parametrize(
    "command",
    [["migrate"], ["serve"], ["worker"], ["demo"], ["sync", "run-once"], ["secrets", "rotate"],
     ["accounts", "connect", "--org", "o", "--account-id", "1", "--token", "t"],
     ["accounts", "reconnect", "1", "--token", "t"],
     ["webhooks", "add", "--org", "o", "--url", "http://x"]],
    ids=lambda c: " ".join(c[:2]),
)
def test_a_configured_database_without_keys_refuses_to_start_with_one_clear_line(command, database_url):
    result = relay(database_url, *command, keys="")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: RELAY_SECRET_KEYS is not set")
    assert "relay secrets generate-key" in lines[0]


def test_generate_key_prints_a_key_the_settings_accept():
    result = CliRunner().invoke(main, ["secrets", "generate-key"], env={"RELAY_DATABASE_URL": ""})
    key = result.output.strip()
    assert result.exit_code == 0 and Keyring([key]).decrypt(Keyring([key]).encrypt("x")) == "x"
    assert Settings.from_env({"RELAY_SECRET_KEYS": f"{key},{generate_key()}"}).secret_keys.startswith(key)


def test_a_bad_key_is_refused_by_position_without_showing_it():
    good = generate_key()
    with pytest.raises(SettingsError) as info:
        Settings.from_env({"RELAY_SECRET_KEYS": f"{good},not-a-key-at-all"})
    assert "key 2 of 2" in str(info.value)
    assert "not-a-key-at-all" not in str(info.value) and good not in str(info.value)
    assert good not in repr(Settings(secret_keys=good))


def test_the_embedded_default_creates_its_key_file_once_private_and_reuses_it(tmp_path):
    settings = Settings(data_dir=tmp_path / "relay")  # no RELAY_DATABASE_URL, no RELAY_SECRET_KEYS
    stored = load_keyring(settings).encrypt(TOKEN)
    path = key_file(settings)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    first = path.read_text()
    assert load_keyring(Settings(data_dir=tmp_path / "relay")).decrypt(stored) == TOKEN  # a later run
    assert path.read_text() == first and key_list(settings) == [first.strip()]
    assert sorted(p.name for p in path.parent.iterdir()) == ["secret_keys"]  # no draft left behind


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o666])
def test_an_embedded_key_file_others_may_read_or_write_is_refused_naming_the_file_and_chmod_600(tmp_path, mode):
    settings = Settings(data_dir=tmp_path / "relay")
    load_keyring(settings)
    path = key_file(settings)
    path.chmod(mode)
    with pytest.raises(SecretsError) as refused:
        load_keyring(settings)
    assert str(path) in str(refused.value) and f"chmod 600 {path}" in str(refused.value)
    assert f"mode {mode:04o}" in str(refused.value)
    path.chmod(0o400)  # read-only for its owner: fine
    assert load_keyring(settings).size == 1


def test_relay_serve_refuses_to_start_with_a_key_file_others_may_read(tmp_path):
    data_dir = tmp_path / "relay"
    key_list(Settings(data_dir=data_dir))
    key_file(Settings(data_dir=data_dir)).chmod(0o644)
    with socket.socket() as taken:  # were the check missing, serve would stop at once on a busy port
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = CliRunner().invoke(main, ["serve"], env={
            "RELAY_DATABASE_URL": "", "RELAY_SECRET_KEYS": "", "RELAY_DATA_DIR": str(data_dir),
            "RELAY_API_HOST": "127.0.0.1", "RELAY_API_PORT": str(taken.getsockname()[1])})
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"Error: {data_dir.resolve() / 'secret_keys'} is readable or writable by others (mode 0644)")
    assert "chmod 600" in line


def test_a_credential_no_key_opens_answers_424_naming_the_account_never_the_value(
    db, api_client, make_org, make_key
):
    org = make_org()
    foreign = Keyring([generate_key()]).encrypt(TOKEN)  # stored under a key this server lacks
    db.execute("INSERT INTO accounts (id, organization_id, upstream_token) VALUES (%s, %s, %s)",
               (ACCOUNT, org, foreign))
    key = make_key(org)
    answer = api_client.get(f"/v1/{ACCOUNT}/chats", params={"limit": 1}, headers=auth(key))
    assert answer.status_code == 424
    assert answer.json()["code"] == "credential_unreadable" and str(ACCOUNT) in answer.json()["error"]
    assert foreign not in answer.text and "fernet" not in answer.text and TOKEN not in answer.text
    gifs = api_client.get("/v1/gifs/trending", params={"limit": 1}, headers=auth(key))  # the borrowed credential
    assert gifs.status_code == 424 and gifs.json()["code"] == "credential_unreadable"
    # A store-served route: live (nothing synced) it needs the credential, from the store it does not.
    live = api_client.get(f"/v1/{ACCOUNT}/earnings", headers=auth(key))
    assert live.status_code == 424 and live.json()["code"] == "credential_unreadable"
    synced = ACCOUNT + 1  # another account: the first one's coverage is cached as none
    db.execute("INSERT INTO accounts (id, organization_id, upstream_token) VALUES (%s, %s, %s)", (synced, org, foreign))
    db.execute("INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end) "
               "VALUES (%s, 'earnings', 'epoch', now() + interval '1 day')", (synced,))
    stored = api_client.get(f"/v1/{synced}/earnings", headers=auth(key))
    assert stored.status_code == 200, stored.text
    assert stored.json()["_meta"]["_cache"]["source"] == "store"


def test_a_sync_of_an_unreadable_credential_records_the_reason_not_the_value(
    db, sandbox, sync_settings, make_org  # noqa: F811
):
    foreign = Keyring([generate_key()]).encrypt(TOKEN)
    db.execute("INSERT INTO accounts (id, organization_id, upstream_token) VALUES (%s, %s, %s)",
               (ACCOUNT, make_org(), foreign))
    run_until_idle(sync_settings.replace(sync_retry_max_seconds=0.1), only=[(ACCOUNT, "earnings")])
    (error,) = db.execute("SELECT last_error FROM sync_state WHERE account_id = %s", (ACCOUNT,)).fetchone()
    assert "stored credential unreadable" in error and foreign not in error


def test_a_webhook_secret_no_key_opens_sends_nothing_and_logs_the_reason(db, database_url, settings, make_org):
    """Nothing goes out unsigned: the attempt fails with the reason (not the value) and is retried."""
    from tests.events.helpers import deliver_until_idle
    from tests.events.receiver import Receiver

    receiver = Receiver()
    try:
        org = make_org()
        foreign = Keyring([generate_key()]).encrypt("whsec_" + "A" * 44)
        db.execute("INSERT INTO webhook_endpoints (organization_id, url, secret, cursor_tx, cursor_id) "
                   "VALUES (%s, %s, %s, 0, 0)", (org, receiver.url, foreign))
        db.execute("INSERT INTO events (type, organization_id, payload) VALUES ('earnings.created', %s, '{}')", (org,))
        # An event is due once every older transaction of the server has ended (the feed's
        # horizon): other sessions on the server may hold it back a moment.
        def attempted() -> int:
            deliver_until_idle(settings, database_url)
            return db.execute("SELECT count(*) FROM webhook_deliveries").fetchone()[0]

        wait_for(attempted, 30, "a delivery attempt")
        assert receiver.requests == []
        delivered, error = db.execute("SELECT delivered, error FROM webhook_deliveries").fetchone()
        assert not delivered and error.startswith("signing secret unreadable") and foreign not in error
        (attempts,) = db.execute("SELECT attempts FROM webhook_endpoints").fetchone()
        assert attempts == 1  # retried later, like any failed delivery
    finally:
        receiver.close()
