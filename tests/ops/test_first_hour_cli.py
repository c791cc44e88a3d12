"""What a newcomer meets in `relay` (issue 29): a version, a one-line error for a database that
cannot be reached in every command, admin commands quiet on stderr, and a new organization
whose first call answers."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.embedded import embedded_running
from tests.fixtures.api import auth
from tests.fixtures.database import TEST_KEYS_ENV

UNREACHABLE = "postgresql://relay@127.0.0.1:1/relay"


def _relay(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    return subprocess.run([sys.executable, "-m", "app.cli", *args], env={**base, **env},
                          capture_output=True, text=True, timeout=120)


def test_relay_version_prints_the_installed_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"relay, version {version('creator-relay')}"


@pytest.mark.parametrize("command", [
    ["orgs", "list"], ["migrate"], ["sync", "status"], ["sync", "run-once"], ["webhooks", "list"],
    ["export", "earnings", "--account", "1", "--output", "-"],
])
def test_an_unreachable_database_is_one_line_on_stderr_in_every_command(command: list[str]) -> None:
    result = _relay(*command, env={"RELAY_DATABASE_URL": UNREACHABLE, **TEST_KEYS_ENV})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: cannot reach the database: ") and "port 1 failed" in lines[0]
    assert "Traceback" not in result.stderr


def test_every_bad_setting_stops_a_command_with_all_of_them_named_in_plain_words() -> None:
    result = _relay("orgs", "list", env={"RELAY_API_PORT": "eighty", "RELAY_LOG_JSON": "maybe",
                                          "RELAY_UPSTREAM_URL": "ftp://upstream"})
    assert result.returncode == 1
    assert "3 problems with the settings" in result.stderr
    assert "RELAY_API_PORT='eighty': must be a whole number" in result.stderr
    assert "RELAY_LOG_JSON='maybe': must be true, false or auto" in result.stderr
    assert "RELAY_UPSTREAM_URL must be an http:// or https:// URL" in result.stderr
    assert "invalid literal" not in result.stderr and "Traceback" not in result.stderr


def test_admin_commands_on_the_embedded_database_write_nothing_on_stderr() -> None:
    # Not under pytest's tmp_path: as root, PostgreSQL runs as another user, and a concurrent
    # pytest session resets /tmp/pytest-of-root to 0700 (initdb then fails mid-way).
    with tempfile.TemporaryDirectory(prefix="relay-quiet-") as tmp:
        env = {"RELAY_DATA_DIR": str(Path(tmp) / "relay")}
        for command in (["migrate"], ["orgs", "create", "quiet"], ["orgs", "list"], ["sync", "status"]):
            result = _relay(*command, env=env)
            assert result.returncode == 0, result.stderr
            assert result.stderr == "", f"{command}: {result.stderr}"
            assert result.stdout
        assert not embedded_running(Path(tmp) / "relay" / "pgdata")  # each command's exit stopped it


def test_a_new_organization_made_with_defaults_answers_its_first_call(database_url, api_client) -> None:
    env = {"RELAY_DATABASE_URL": database_url, **TEST_KEYS_ENV}
    runner = CliRunner()
    created = runner.invoke(main, ["orgs", "create", "newcomer"], env=env)
    assert created.exit_code == 0 and "1000 credits" in created.output
    key = runner.invoke(main, ["keys", "create", "--org", "newcomer", "--role", "admin"], env=env).stdout.strip()

    first = api_client.get("/v1/events", headers=auth(key))
    assert first.status_code == 200, first.text
    assert first.headers["x-credits-used"] == "1"
    shown = runner.invoke(main, ["credits", "show", "--org", "newcomer", "--json"], env=env)
    assert '"granted": 1000' in shown.stdout


def test_a_new_organization_starts_with_no_credits_when_the_setting_says_0(database_url, api_client) -> None:
    env = {"RELAY_DATABASE_URL": database_url, "RELAY_DEFAULT_CREDITS": "0", **TEST_KEYS_ENV}
    runner = CliRunner()
    assert runner.invoke(main, ["orgs", "create", "prepaid"], env=env).exit_code == 0
    key = runner.invoke(main, ["keys", "create", "--org", "prepaid", "--role", "admin"], env=env).stdout.strip()
    refused = api_client.get("/v1/events", headers=auth(key))
    assert refused.status_code == 402 and refused.json()["code"] == "credits_exhausted"
