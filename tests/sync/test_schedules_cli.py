"""``relay schedules add|list|pause|resume|remove``: what is stored and listed, and every
refused option named in one line with exit status 1."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner, Result

from app.cli import main
from tests.sync.processes import worker_env


@pytest.fixture
def cli(database_url, sandbox):
    sandbox.reset()

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(main, ["schedules", *args], env=worker_env(database_url, sandbox))

    return invoke


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return result.stdout


def test_add_list_pause_resume_remove(db, cli, sandbox, new_account, tmp_path):
    account_id = new_account()
    (org,) = db.execute("SELECT o.name FROM organizations o JOIN accounts a ON a.organization_id = o.id "
                        "WHERE a.id = %s", (account_id,)).fetchone()
    now = datetime.fromtimestamp(int(sandbox.clock()["now"]), UTC)
    weekly = int(ok(cli("add", "--org", org, "--account", str(account_id), "--all-resources",
                        "--action", "reconcile", "--cron", "0 3 * * mon", "--tz", "Europe/Berlin", "--since", "30d")))
    export = int(ok(cli("add", "--org", org, "--all-accounts", "--resource", "posts", "--action", "export",
                        "--format", "csv", "--to", str(tmp_path / "out"), "--cron", "*/15 * * * *")))
    listed = {s["id"]: s for s in json.loads(ok(cli("list", "--json")))}
    assert listed[weekly] | {"next_run_at": None} == {
        "id": weekly, "organization": org, "account_id": account_id, "resource": None, "action": "reconcile",
        "cron": "0 3 * * mon", "timezone": "Europe/Berlin", "since": "30d", "format": None, "to": None,
        "paused": False, "next_run_at": None, "retry_at": None, "failures": 0, "running_on": None, "last_run": None,
    }
    # 2026-01-01 is a Thursday: the next Monday 03:00 in Berlin is 02:00 UTC on the 5th.
    assert listed[weekly]["next_run_at"] == "2026-01-05T02:00:00+00:00" and now.day == 1
    assert listed[export]["to"] == str(tmp_path / "out") and listed[export]["format"] == "csv"
    assert listed[export]["next_run_at"] == (now + timedelta(minutes=15)).isoformat()
    table = ok(cli("list")).splitlines()
    assert table[0].split() == ["id", "org", "target", "action", "cron", "next", "run", "last", "run"]
    assert f"{account_id}/all" in table[1] and "never" in table[1] and "all/posts" in table[2]

    assert "paused" in ok(cli("pause", str(export)))
    assert json.loads(ok(cli("list", "--json")))[1]["paused"] is True
    sandbox.advance(3600)  # missed while paused: not run, the next time is after now
    ok(cli("resume", str(export)))
    resumed = json.loads(ok(cli("list", "--json")))[1]
    assert not resumed["paused"] and resumed["next_run_at"] == (now + timedelta(minutes=75)).isoformat()
    ok(cli("remove", str(weekly)))
    assert [s["id"] for s in json.loads(ok(cli("list", "--json")))] == [export]


@pytest.mark.parametrize(("args", "message"), [
    (["--resource", "earnings"], "give exactly one of --account and --all-accounts"),
    (["--all-accounts", "--all-resources", "--resource", "posts"], "give exactly one of --resource and --all-resources"),
    (["--all-accounts", "--resource", "nope"], "--resource 'nope' must be one of: earnings"),
    (["--all-accounts", "--all-resources", "--action", "sync"], "--action 'sync' must be one of: backfill, reconcile, export"),
    (["--all-accounts", "--all-resources", "--cron", "* * * *"], "needs 5 fields"),
    (["--all-accounts", "--all-resources", "--cron", "0 3 * * 1"], "name the days of the week"),
    (["--all-accounts", "--all-resources", "--cron", "61 * * * *"], "higher than the maximum value (59)"),
    (["--all-accounts", "--all-resources", "--tz", "Mars/Base"], "--tz 'Mars/Base' is not a time zone"),
    (["--all-accounts", "--all-resources", "--since", "soon"], "--since 'soon' is neither a duration"),
    (["--all-accounts", "--all-resources", "--format", "csv"], "--format and --to are only for --action export"),
    (["--all-accounts", "--all-resources", "--action", "export"], "--action export needs --format"),
    (["--all-accounts", "--resource", "tracking_links", "--action", "export", "--format", "csv", "--to", "x"],
     "--resource 'tracking_links' must be one of: earnings, chargebacks, payout_requests, posts"),
    (["--all-accounts", "--all-resources", "--action", "export", "--format", "xlsx", "--to", "x"],
     "--format 'xlsx' must be one of: parquet, csv"),
    (["--account", "424242", "--all-resources"], "--account 424242 is not an account of organization"),
])
def test_refused_options_say_which_and_why(db, cli, new_account, args, message):
    account_id = new_account()
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()
    base = {"--org": str(org_id), "--action": "reconcile", "--cron": "* * * * *"}
    for name in ("--action", "--cron"):
        if name in args:
            base.pop(name)
    result = cli("add", *[x for kv in base.items() for x in kv], *args)
    assert result.exit_code == 1, result.output
    assert message in result.output
    assert db.execute("SELECT count(*) FROM schedules").fetchone()[0] == 0


def test_unknown_organization_and_schedule_are_refused(db, cli):
    result = cli("add", "--org", "nobody", "--all-accounts", "--all-resources", "--action", "backfill", "--cron", "@daily")
    assert result.exit_code == 1 and "no organization 'nobody'" in result.output
    for command in ("pause", "resume", "remove"):
        result = cli(command, "999")
        assert result.exit_code == 1 and "no schedule 999" in result.output
