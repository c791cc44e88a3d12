"""``relay accounts connect|reconnect``: the credential comes from standard input, and the
upstream (the sandbox, over HTTP) is asked once whether it accepts it before it is stored."""

from __future__ import annotations

import pytest
from click.testing import CliRunner, Result

from app.cli import main
from tests.fixtures.database import TEST_KEYS_ENV
from tests.fixtures.net import free_port
from tests.fixtures.sandbox import fresh_account_id


@pytest.fixture
def relay(db, database_url, sandbox, sandbox_reset):
    """``relay(*args, input=..., upstream=...)`` -> click's result, against the sandbox."""

    def run(*args: str, input: str | None = None, upstream: str | None = None) -> Result:  # noqa: A002
        env = {"RELAY_DATABASE_URL": database_url, "RELAY_UPSTREAM_URL": upstream or sandbox.url,
               "RELAY_UPSTREAM_MAX_ATTEMPTS": "1", **TEST_KEYS_ENV}
        return CliRunner().invoke(main, list(args), input=input, env=env)

    assert run("orgs", "create", "creds").exit_code == 0
    return run


def stored_token(db, keyring, account_id: int) -> str | None:
    row = db.execute("SELECT upstream_token FROM accounts WHERE id = %s", (account_id,)).fetchone()
    return None if row is None else keyring.decrypt(row[0])


def upstream_calls(sandbox, account_id: int) -> int:
    return sum(sandbox.requests(account_id)["requests"].values())


def test_connect_reads_the_credential_from_stdin_and_checks_it_with_one_upstream_call(relay, db, keyring, sandbox):
    account_id = fresh_account_id()

    result = relay("accounts", "connect", "--org", "creds", "--account-id", str(account_id), "--token-stdin",
                   input=f"sandbox-{account_id}\n")

    assert result.exit_code == 0, result.output
    assert stored_token(db, keyring, account_id) == f"sandbox-{account_id}"  # the newline is not part of it
    assert upstream_calls(sandbox, account_id) == 1


def test_a_credential_the_upstream_rejects_is_refused_and_nothing_is_stored(relay, db, keyring, sandbox):
    account_id = fresh_account_id()

    result = relay("accounts", "connect", "--org", "creds", "--account-id", str(account_id), "--token-stdin",
                   input="not-the-right-token\n")

    assert result.exit_code == 1
    assert result.output.strip() == (
        f"Error: the upstream rejected the credential of account {account_id}; nothing was stored"
    )
    assert "not-the-right-token" not in result.output
    assert stored_token(db, keyring, account_id) is None

    unchecked = relay("accounts", "connect", "--org", "creds", "--account-id", str(account_id), "--token-stdin",
                      "--no-check", input="not-the-right-token\n")
    assert unchecked.exit_code == 0, unchecked.output
    assert stored_token(db, keyring, account_id) == "not-the-right-token"
    assert upstream_calls(sandbox, account_id) == 1  # --no-check asked nothing


def test_reconnect_checks_the_new_credential_or_the_stored_one(relay, db, keyring, sandbox):
    account_id = fresh_account_id()
    token = f"sandbox-{account_id}"
    assert relay("accounts", "connect", "--org", "creds", "--account-id", str(account_id), "--token-stdin",
                 input=token).exit_code == 0
    db.execute("UPDATE accounts SET status = 'credentials_rejected' WHERE id = %s", (account_id,))

    sandbox.reject_credentials(account_id)
    refused = relay("accounts", "reconnect", str(account_id), "--token-stdin", input=f"{token}\n")
    assert refused.exit_code == 1 and "upstream rejected the credential" in refused.output
    assert db.execute("SELECT status FROM accounts WHERE id = %s", (account_id,)).fetchone() == ("credentials_rejected",)

    sandbox.reject_credentials(account_id, False)
    assert relay("accounts", "reconnect", str(account_id), "--token-stdin", input=f"{token}\n").exit_code == 0
    assert db.execute("SELECT status FROM accounts WHERE id = %s", (account_id,)).fetchone() == ("active",)

    # After a disconnect, reconnect needs no credential: the stored one is checked again.
    assert relay("accounts", "disconnect", str(account_id)).exit_code == 0
    calls = upstream_calls(sandbox, account_id)
    again = relay("accounts", "reconnect", str(account_id))
    assert again.exit_code == 0, again.output
    assert upstream_calls(sandbox, account_id) == calls + 1
    assert stored_token(db, keyring, account_id) == token
    assert db.execute("SELECT status FROM accounts WHERE id = %s", (account_id,)).fetchone() == ("active",)


def test_an_upstream_that_cannot_answer_leaves_the_credential_unchecked_and_unstored(relay, db, keyring):
    account_id = fresh_account_id()

    result = relay("accounts", "connect", "--org", "creds", "--account-id", str(account_id), "--token-stdin",
                   input="sandbox-1\n", upstream=f"http://127.0.0.1:{free_port()}")

    assert result.exit_code == 1
    assert "could not be checked" in result.output and "--no-check" in result.output
    assert stored_token(db, keyring, account_id) is None


@pytest.mark.parametrize(
    ("args", "message"),
    [(("--token", "a", "--token-stdin"), "not both"), ((), "--token-stdin"), (("--token-stdin",), "empty")],
    ids=["both", "neither", "empty"],
)
def test_the_credential_comes_one_way_and_is_not_empty(relay, args, message):
    result = relay("accounts", "connect", "--org", "creds", "--account-id", "1", *args, input="\n")
    assert result.exit_code == 2 and message in result.output
