"""``relay webhooks add|list|disable|redeliver`` (``test``: test_webhooks_test_command.py) and ``relay export`` end to end: a real
receiver, the sandbox over HTTP, the stored rows as the reference."""

from __future__ import annotations

import csv
import json
import re
import stat
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result
from standardwebhooks.webhooks import Webhook

from app.cli import main
from app.exports.columns import columns_of
from tests.events.helpers import DAY, deliver_until_idle, events_of, initial_sync, next_incremental
from tests.fixtures.database import TEST_KEYS_ENV
from tests.fixtures.net import wait_for

pytestmark = pytest.mark.slow

_SECONDS = "%Y-%m-%dT%H:%M:%S"


#: The receivers of these tests listen on 127.0.0.1.
PRIVATE_ALLOWED = {"RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true"}


def invoke(database_url: str, *args: str, env: dict[str, str] = PRIVATE_ALLOWED) -> Result:
    return CliRunner().invoke(main, list(args), env={"RELAY_DATABASE_URL": database_url, **TEST_KEYS_ENV, **env})


def ok(database_url: str, *args: str) -> str:
    result = invoke(database_url, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def refused(database_url: str, *args: str, env: dict[str, str] = PRIVATE_ALLOWED) -> str:
    """The command's error message; it must be refused with one (exit 1), not crash."""
    result = invoke(database_url, *args, env=env)
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    return result.stderr


def _received(receiver, secret: str) -> list[str]:
    """Ids of the accepted deliveries, each signature verified."""
    verifier = Webhook(secret)
    ids = []
    for headers, body in receiver.accepted():
        ids.append(verifier.verify(body, headers)["id"])
    return ids


def _created_ids(db, account_id: int) -> list[str]:
    return [f"evt_{e.hex}" for e, _, _ in events_of(db, account_id, "earnings.created")]


def _now_in_a_second_after(db, moment: datetime) -> datetime | None:
    """The database's ``now()`` once its whole second is past ``moment``."""
    row = db.execute("SELECT now() WHERE date_trunc('second', now()) > %s", (moment,)).fetchone()
    return row[0] if row else None


def test_webhooks_cli_adds_lists_disables_and_redelivers_since_a_time(
    db, database_url, sandbox, sync_settings, new_account, receiver
):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    org = f"org-{account_id}"

    assert "must be http:// or https://" in refused(database_url, "webhooks", "add", "--org", org, "--url", "ftp://x")
    assert "unknown event type 'earnings.deleted'" in refused(
        database_url, "webhooks", "add", "--org", org, "--url", receiver.url, "--events", "earnings.deleted")
    assert "no organization 'nobody'" in refused(database_url, "webhooks", "add", "--org", "nobody", "--url", receiver.url)

    added = invoke(database_url, "webhooks", "add", "--org", org, "--url", receiver.url, "--events", "earnings.created")
    assert added.exit_code == 0, added.output
    secret = added.stdout.strip()  # stdout holds the secret alone (scripts capture it)
    assert secret.startswith("whsec_") and "shown once" in added.stderr
    (endpoint_id,) = db.execute("SELECT id FROM webhook_endpoints WHERE url = %s", (receiver.url,)).fetchone()
    listed = ok(database_url, "webhooks", "list", "--org", org)
    assert re.split(r"\s{2,}", listed.splitlines()[1])[:5] == [str(endpoint_id), org, receiver.url, "earnings.created", "active"]
    assert secret not in listed and secret.removeprefix("whsec_") not in listed

    # Active: the new transactions of a day arrive, signed with the printed secret.
    sandbox.advance(DAY)
    next_incremental(db, sync_settings, account_id)
    first_day = _created_ids(db, account_id)
    deliver_until_idle(sync_settings, database_url)
    assert first_day and _received(receiver, secret) == first_day

    # Disabled: the next day's events are stored but not sent.
    ok(database_url, "webhooks", "disable", str(endpoint_id), "--reason", "receiver migrating")
    assert "disabled (receiver migrating)" in ok(database_url, "webhooks", "list")
    # --since has whole seconds: the moment between the days is in a later second than
    # the first day's newest event.
    (newest,) = db.execute("SELECT max(occurred_at) FROM events WHERE account_id = %s", (account_id,)).fetchone()
    since = wait_for(lambda: _now_in_a_second_after(db, newest), 5, "the second after the first day's events",
                     every=0.05).astimezone(UTC)
    sandbox.advance(DAY)
    next_incremental(db, sync_settings, account_id)
    second_day = _created_ids(db, account_id)[len(first_day):]
    assert second_day
    deliver_until_idle(sync_settings, database_url)
    assert len(receiver.requests) == len(first_day)

    # Redelivered since the moment between the days: the second day's events, in order, once.
    queued = ok(database_url, "webhooks", "redeliver", str(endpoint_id), "--since", since.strftime(_SECONDS))
    assert queued.strip() == f"webhook endpoint {endpoint_id}: {len(second_day)} events queued"
    assert re.search(rf"{re.escape(receiver.url)}\s+earnings.created\s+active", ok(database_url, "webhooks", "list"))
    deliver_until_idle(sync_settings, database_url)
    assert _received(receiver, secret) == first_day + second_day

    assert "no webhook endpoint 999999" in refused(database_url, "webhooks", "disable", "999999")


def _stored(db, account_id: int, start: datetime, end: datetime) -> list[tuple]:
    """(id, status, net, created_at, payload) of the stored earnings of [start, end]."""
    return db.execute(
        "SELECT id, status, net, created_at, payload FROM earnings "
        "WHERE account_id = %s AND created_at BETWEEN %s AND %s ORDER BY created_at, id",
        (account_id, start, end),
    ).fetchall()


def _csv_rows(path: Path) -> tuple[list[str], list[tuple]]:
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        rows = [(r["id"], r["status"], Decimal(r["net"]), datetime.fromisoformat(r["created_at"]),
                 json.loads(r["payload"])) for r in reader]
        return list(reader.fieldnames), rows


def _parquet_rows(path: Path) -> tuple[list[str], list[tuple]]:
    table = pq.read_table(path)
    rows = [(r["id"], r["status"], r["net"], r["created_at"], json.loads(r["payload"])) for r in table.to_pylist()]
    return table.column_names, rows


def test_export_cli_writes_the_stored_rows_of_the_window_as_csv_and_parquet(
    db, database_url, sandbox, sync_settings, new_account, tmp_path
):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    now = datetime.fromtimestamp(int(sandbox.clock()["now"]), UTC)
    start = datetime.fromtimestamp(now.timestamp() - 40 * DAY, UTC).replace(microsecond=0)
    end = datetime.fromtimestamp(now.timestamp() - 10 * DAY, UTC).replace(microsecond=0)
    expected = _stored(db, account_id, start, end)
    assert len(expected) > 500
    names = [c.name for c in columns_of("earnings")]

    for fmt, read in (("csv", _csv_rows), ("parquet", _parquet_rows)):
        output = tmp_path / f"earnings.{fmt}"
        result = invoke(database_url, "export", "earnings", "--account", str(account_id), "--format", fmt,
                        "--since", start.strftime(_SECONDS), "--until", end.strftime(_SECONDS),
                        "--output", str(output))
        assert result.exit_code == 0, result.output
        assert f"{len(expected)} rows written to {output}" in result.stderr
        assert stat.S_IMODE(output.stat().st_mode) == 0o600  # an account's data: its owner's alone
        header, rows = read(output)
        assert header == names  # the documented order, one definition (app/exports/columns.py)
        assert rows == expected

    # Without a window: the whole coverage.
    whole = tmp_path / "all.csv"
    ok(database_url, "export", "earnings", "--account", str(account_id), "--output", str(whole), "--no-progress")
    assert len(_csv_rows(whole)[1]) == len(_stored(db, account_id, datetime.fromtimestamp(0, UTC), now))


def test_export_cli_refuses_a_window_outside_the_stored_coverage(db, database_url, sandbox, sync_settings, new_account, tmp_path):
    account_id = new_account(earnings=300, history_days=30)
    output = tmp_path / "out.csv"
    args = ("export", "earnings", "--account", str(account_id), "--output", str(output))
    assert "holds no complete range of earnings for this account yet" in refused(database_url, *args)

    initial_sync(sync_settings, account_id)
    error = refused(database_url, *args, "--until", "2099-01-01")
    assert "window 1970-01-01T00:00:00+00:00..2099-01-01T00:00:00+00:00 is not inside the stored coverage of earnings: 1970-01-01T00:00:00+00:00.." in error
    assert not output.exists()
