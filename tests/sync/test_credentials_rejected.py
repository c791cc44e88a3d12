"""An account whose credential the upstream rejects: its status says so everywhere (``relay
accounts list``, ``relay sync status``, the status page's rows, the metrics), its sync stops
until it is reconnected, and its event is written once per rejection.

Before, the account stayed ``active``; a head check that makes no request (the tracking-link
daily stats: a new day needs none) kept recording a success, which reopened the event's
once-per-account window, so the next rejection sent ``account.credentials_rejected`` again.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import psycopg
import pytest
from click.testing import CliRunner

from app.cli import main
from app.status.page import render
from app.store.status import StatusReads, Viewer, sync_rows
from sync import leases
from sync.metrics import ACCOUNTS, COVERAGE_LAG, refresh_store_gauges
from sync.resources import REGISTRY
from tests.events.helpers import DAY, events_of, initial_sync, next_incremental
from tests.fixtures.database import TEST_KEYS_ENV

pytestmark = pytest.mark.slow

RESOURCES = ("earnings", "tracking_links", "tracking_link_daily_stats")


def relay(database_url: str, sandbox, *args: str, input: str | None = None) -> str:  # noqa: A002
    env = {"RELAY_DATABASE_URL": database_url, "RELAY_UPSTREAM_URL": sandbox.url, **TEST_KEYS_ENV}
    result = CliRunner().invoke(main, list(args), input=input, env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def run(database_url: str, work) -> object:
    async def go():
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            return await work(conn)

    return asyncio.run(go())


def sandbox_calls(sandbox, account_id: int) -> int:
    return sum(sandbox.requests(account_id)["requests"].values())


def successes(db, account_id: int) -> list[tuple]:
    return db.execute(
        "SELECT resource, last_success_at FROM sync_state WHERE account_id = %s ORDER BY resource", (account_id,)
    ).fetchall()


def test_a_rejected_credential_stops_the_account_with_one_event_and_shows_everywhere(
    db, database_url, sandbox, sync_settings, new_account
):
    account_id = new_account(earnings=200, history_days=30, tracking_links=3)
    initial_sync(sync_settings, account_id, RESOURCES)
    sandbox.reject_credentials(account_id)

    next_incremental(db, sync_settings, account_id, RESOURCES)
    calls, synced = sandbox_calls(sandbox, account_id), successes(db, account_id)
    for _ in range(2):  # later rounds, one on a new day (the daily stats' head check has news)
        sandbox.advance(DAY)
        next_incremental(db, sync_settings, account_id, RESOURCES)

    assert db.execute("SELECT status FROM accounts WHERE id = %s", (account_id,)).fetchone() == ("credentials_rejected",)
    # its sync stopped: nothing was claimed, nothing asked, no success recorded
    assert sandbox_calls(sandbox, account_id) == calls
    assert successes(db, account_id) == synced
    (event,) = events_of(db, account_id, "account.credentials_rejected")
    assert event[2]["account_id"] == account_id and event[2]["resource"] in RESOURCES
    assert event[2]["error"].startswith("upstream_credentials_rejected")

    (listed,) = json.loads(relay(database_url, sandbox, "accounts", "list", "--json"))
    assert (listed["id"], listed["status"]) == (account_id, "credentials_rejected")
    assert "credentials_rejected" in relay(database_url, sandbox, "accounts", "list")
    status = json.loads(relay(database_url, sandbox, "sync", "status", "--json"))
    assert {(r["account_id"], r["account_status"]) for r in status} == {(account_id, "credentials_rejected")}
    assert "account credentials_rejected" in relay(database_url, sandbox, "sync", "status")
    org_id = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()[0]
    rows = run(database_url, lambda conn: sync_rows(conn, org_id))
    assert {r.account_status for r in rows} == {"credentials_rejected"}
    page = render(Viewer(1, org_id, "o", "admin", True, 0.0), StatusReads(rows, [], []), datetime.now(UTC))
    assert f'{account_id} <span class="err">credentials_rejected</span>' in page
    run(database_url, refresh_store_gauges)
    assert ACCOUNTS.labels("credentials_rejected")._value.get() == 1
    assert ACCOUNTS.labels("active")._value.get() == 0

    # Reconnected (checked: the upstream accepts it again), it syncs again; a new rejection
    # is a new event.
    sandbox.reject_credentials(account_id, False)
    relay(database_url, sandbox, "accounts", "reconnect", str(account_id), "--token-stdin",
          input=f"sandbox-{account_id}\n")
    next_incremental(db, sync_settings, account_id, RESOURCES)
    assert sandbox_calls(sandbox, account_id) > calls + 1
    assert db.execute("SELECT status FROM accounts WHERE id = %s", (account_id,)).fetchone() == ("active",)
    sandbox.reject_credentials(account_id)
    next_incremental(db, sync_settings, account_id, RESOURCES)
    assert len(events_of(db, account_id, "account.credentials_rejected")) == 2


def test_an_account_that_never_synced_is_in_the_lag_metric(db, database_url, new_account):
    account_id = new_account()
    db.execute("UPDATE accounts SET created_at = now() - interval '1 hour' WHERE id = %s", (account_id,))

    async def enqueue_and_refresh(conn) -> None:
        await leases.enqueue(conn, list(REGISTRY), initial_backfill=True)
        await refresh_store_gauges(conn)

    run(database_url, enqueue_and_refresh)

    for resource in REGISTRY:
        worst = COVERAGE_LAG.labels(resource, "worst")._value.get()
        assert 3600 <= worst < 3700, (resource, worst)
