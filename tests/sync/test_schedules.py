"""Schedules run by the workers: one run per due time whatever the number of workers, one run
for the times missed while no worker ran, failures retried with their error shown, and a
scheduled Parquet export equal to the API's export of the same window.

Time is the sandbox's frozen clock (RELAY_SYNC_CLOCK=sandbox): a test moves it a minute at a
time instead of waiting for one."""

from __future__ import annotations

import asyncio
import io
import json
import signal
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from psycopg import AsyncConnection

from app.admin.service import reconnect_account
from app.cli import main
from app.exports.files import file_name
from sync.schedules import store
from sync.schedules.store import NewSchedule
from sync.worker import Worker
from tests.events.helpers import initial_sync, reader_key
from tests.fixtures.api import auth
from tests.fixtures.net import wait_for
from tests.sync.processes import relay, worker_env

pytestmark = pytest.mark.slow


def schedules_cli(database_url: str, sandbox, *args: str) -> str:
    result = CliRunner().invoke(main, ["schedules", *args], env=worker_env(database_url, sandbox))
    assert result.exit_code == 0, result.output
    return result.stdout


def org_of(db, account_id: int) -> int:
    return db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()[0]


def runs(db, schedule_id: int) -> list[tuple]:
    return db.execute(
        "SELECT due_at, attempt, status FROM schedule_runs WHERE schedule_id = %s ORDER BY due_at, attempt",
        (schedule_id,),
    ).fetchall()


@pytest.fixture(autouse=True)
def clock_on_a_whole_hour(sandbox_reset):
    """Due times are counted from the sandbox's clock: frozen on a whole hour (its epoch is
    one; the cron times of these tests assume it)."""
    now = int(sandbox_reset.clock()["now"])
    sandbox_reset.set_clock(now=now - now % 3600 + 3600, frozen=True)


def sandbox_now(sandbox) -> datetime:
    return datetime.fromtimestamp(int(sandbox.clock()["now"]), UTC)


def succeeded(db, schedule_id: int, due: datetime):
    def check() -> bool:
        return db.execute(
            "SELECT 1 FROM schedule_runs WHERE schedule_id = %s AND due_at = %s AND status = 'succeeded'",
            (schedule_id, due),
        ).fetchone() is not None

    return check


def stop(workers) -> None:
    for w in workers:
        w.send_signal(signal.SIGTERM)
    assert [w.wait(30) for w in workers] == [0] * len(workers)


def run_worker_until(settings, database_url: str, sql: str, params: tuple) -> None:
    """An in-process ``relay worker`` (schedules included) until ``sql`` returns a row."""

    async def done(conn: AsyncConnection) -> bool:
        cur = await conn.execute(sql, params)
        return await cur.fetchone() is not None

    asyncio.run(asyncio.wait_for(Worker(settings, done=done).run(), 120))


def test_two_workers_run_each_due_time_of_an_every_minute_schedule_once(db, database_url, sandbox, new_account):
    account_id = new_account(earnings=300, history_days=30)
    start = sandbox_now(sandbox)
    schedule_id = int(schedules_cli(
        database_url, sandbox, "add", "--org", str(org_of(db, account_id)), "--account", str(account_id),
        "--resource", "earnings", "--action", "reconcile", "--cron", "* * * * *",
    ))
    env = worker_env(database_url, sandbox, RELAY_SYNC_INITIAL_BACKFILL="false")
    workers = [relay("worker", env={**env, "RELAY_WORKER_ID": name}) for name in ("worker-a", "worker-b")]
    dues = [start + timedelta(minutes=m) for m in (1, 2, 3)]
    try:
        for due in dues:
            sandbox.advance(60)
            wait_for(succeeded(db, schedule_id, due), 60, f"the run due at {due}")
    finally:
        stop(workers)
    assert runs(db, schedule_id) == [(due, 1, "succeeded") for due in dues]
    listed = json.loads(schedules_cli(database_url, sandbox, "list", "--json"))
    assert listed[0]["next_run_at"] == (start + timedelta(minutes=4)).isoformat()
    assert listed[0]["last_run"]["due_at"] == dues[-1].isoformat()
    assert listed[0]["last_run"]["rows_read"] > 0  # the reconcile re-read the covered earnings


def test_times_missed_while_no_worker_ran_run_once_then_the_next_time_after_now(
    db, database_url, sandbox, new_account
):
    account_id = new_account(earnings=300, history_days=30)
    start = sandbox_now(sandbox)
    schedule_id = int(schedules_cli(
        database_url, sandbox, "add", "--org", str(org_of(db, account_id)), "--all-accounts",
        "--resource", "earnings", "--action", "reconcile", "--cron", "* * * * *",
    ))
    sandbox.advance(10 * 60 + 30)  # ten due times pass with no worker running
    env = worker_env(database_url, sandbox, RELAY_SYNC_INITIAL_BACKFILL="false")
    workers = [relay("worker", env=env)]
    try:
        wait_for(succeeded(db, schedule_id, start + timedelta(minutes=1)), 60, "the missed run")
        time.sleep(3)  # a replay of the other nine would have started by now (polls every 0.2 s)
    finally:
        stop(workers)
    assert runs(db, schedule_id) == [(start + timedelta(minutes=1), 1, "succeeded")]
    (next_run,) = db.execute("SELECT next_run_at FROM schedules WHERE id = %s", (schedule_id,)).fetchone()
    assert next_run == start + timedelta(minutes=11)


def test_a_failed_run_shows_its_error_and_is_retried_with_backoff(
    db, database_url, sandbox, sync_settings, new_account, keyring
):
    account_id = new_account(earnings=300, history_days=30)
    initial_sync(sync_settings, account_id)
    schedule_id = int(schedules_cli(
        database_url, sandbox, "add", "--org", str(org_of(db, account_id)), "--account", str(account_id),
        "--resource", "earnings", "--action", "reconcile", "--cron", "0 * * * *",
    ))
    due = sandbox_now(sandbox) + timedelta(hours=1)
    sandbox.reject_credentials(account_id)
    sandbox.advance(3600)
    run_worker_until(sync_settings, database_url,
                     "SELECT 1 FROM schedule_runs WHERE schedule_id = %s AND status = 'failed'", (schedule_id,))
    (listed,) = json.loads(schedules_cli(database_url, sandbox, "list", "--json"))
    assert listed["last_run"]["status"] == "failed" and listed["failures"] == 1
    assert "upstream_credentials_rejected" in listed["last_run"]["error"]
    assert listed["retry_at"] is not None and listed["next_run_at"] == (due + timedelta(hours=1)).isoformat()

    sandbox.reject_credentials(account_id, rejected=False)
    # the rejection stopped the account's sync: the operator turns it back on
    reconnect_account(db, account_id, None, keyring=keyring)
    sandbox.advance(1)  # past the backoff (RELAY_SYNC_RETRY_MAX_SECONDS is 0.5 here)
    run_worker_until(sync_settings, database_url,
                     "SELECT 1 FROM schedule_runs WHERE schedule_id = %s AND status = 'succeeded'", (schedule_id,))
    assert runs(db, schedule_id) == [(due, 1, "failed"), (due, 2, "succeeded")]


def test_a_scheduled_parquet_export_equals_the_api_export_of_the_same_window(
    db, database_url, sandbox, sync_settings, new_account, api_client, tmp_path: Path
):
    account_id = new_account(earnings=2000, history_days=60)
    initial_sync(sync_settings, account_id)
    org_id = org_of(db, account_id)
    target = tmp_path / "exports"
    schedule_id = int(schedules_cli(
        database_url, sandbox, "add", "--org", str(org_id), "--account", str(account_id), "--resource",
        "earnings", "--action", "export", "--format", "parquet", "--to", str(target), "--cron", "* * * * *",
    ))
    sandbox.advance(60)
    run_worker_until(sync_settings, database_url,
                     "SELECT 1 FROM schedule_runs WHERE schedule_id = %s AND status = 'succeeded'", (schedule_id,))
    start, end = db.execute(
        "SELECT coverage_start, coverage_end FROM sync_state WHERE account_id = %s AND resource = 'earnings'",
        (account_id,),
    ).fetchone()
    (written,) = [p for p in target.iterdir()]
    assert written.name == file_name(account_id, "earnings", start, end, "parquet")  # no temporary file left

    answer = api_client.get(
        f"/v1/{account_id}/exports/earnings", headers=auth(reader_key(db, org_id)),
        params={"format": "parquet", "start_date": start.isoformat(), "end_date": end.isoformat()},
    )
    assert answer.status_code == 200, answer.text
    from_api = pq.read_table(io.BytesIO(answer.content))
    from_schedule = pq.read_table(written)
    assert from_schedule.num_rows > 1000
    assert from_schedule.schema == from_api.schema and from_schedule.equals(from_api)
    (listed,) = json.loads(schedules_cli(database_url, sandbox, "list", "--json"))
    assert listed["last_run"]["rows_read"] == from_schedule.num_rows
    assert listed["last_run"]["details"]["files"][0]["path"] == str(written)


def test_racing_claims_of_one_due_time_start_one_run(db, database_url, sandbox, new_account):
    account_id = new_account()
    now = sandbox_now(sandbox)
    new = NewSchedule(org_of(db, account_id), None, "earnings", "reconcile", "* * * * *", "UTC", None, None, None)
    schedule_id = store.add(db, new, now)
    later = now + timedelta(minutes=5, seconds=30)  # five due times missed

    async def claims() -> list:
        conns = [await AsyncConnection.connect(database_url, autocommit=True) for _ in range(8)]
        try:
            return await asyncio.gather(*(store.claim(c, f"w{i}", later, 30) for i, c in enumerate(conns)))
        finally:
            for conn in conns:
                await conn.close()

    claimed = [c for c in asyncio.run(claims()) if c is not None]
    assert [(c.schedule_id, c.due_at, c.attempt) for c in claimed] == [(schedule_id, now + timedelta(minutes=1), 1)]
    assert runs(db, schedule_id) == [(now + timedelta(minutes=1), 1, "running")]
    (next_run,) = db.execute("SELECT next_run_at FROM schedules WHERE id = %s", (schedule_id,)).fetchone()
    assert next_run == now + timedelta(minutes=6)
