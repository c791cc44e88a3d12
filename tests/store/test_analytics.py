"""The earnings rollup stays exact, the analyst views answer, and the read-only role reads only them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from click.testing import CliRunner

from app.cli import main
from tests.fixtures.store import write_page


def _earning(i: int, at: datetime, net: str = "8.00") -> dict:
    return {"id": f"{1_000_000_000_000 + i}", "amount": 10.0, "net": float(net), "fee": 2.0,
            "vatAmount": 0, "taxAmount": 0, "mediaTaxAmount": 0, "currency": "USD",
            "createdAt": at.isoformat(), "description": "", "status": "done",
            "payoutPendingDays": 7, "user": {"id": 5}}


def _rollup_matches_rows(db) -> None:
    rollup = db.execute(
        "SELECT account_id, day, type, tips_source, rows, net, gross FROM earnings_daily WHERE rows <> 0 ORDER BY 1,2,3,4"
    ).fetchall()
    raw = db.execute(
        "SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, type, coalesce(tips_source, ''), "
        "count(*), sum(net), sum(amount) FROM earnings GROUP BY 1,2,3,4 ORDER BY 1,2,3,4"
    ).fetchall()
    assert rollup == raw


def test_the_rollup_follows_the_writers_and_a_recount_after_changes_by_hand(db, database_url, monkeypatch):
    day = datetime(2025, 5, 1, 23, 59, 59, tzinfo=UTC)
    rows = [_earning(i, day + timedelta(seconds=i)) for i in range(10)]
    write_page(db, "earnings", 1, rows[:6], type="tips", tips_source="chat")
    write_page(db, "earnings", 1, rows[6:], type="post")
    _rollup_matches_rows(db)
    # An upsert that changes amounts and moves a row across midnight.
    write_page(db, "earnings", 1, [_earning(0, day + timedelta(days=3), net="1.50")], type="tips", tips_source="chat")
    _rollup_matches_rows(db)
    # A delete by hand bypasses the writers; the recount rebuilds the account's rollup.
    db.execute("DELETE FROM earnings WHERE id = %s", (rows[7]["id"],))
    with pytest.raises(AssertionError):
        _rollup_matches_rows(db)
    monkeypatch.setenv("RELAY_DATABASE_URL", database_url)
    result = CliRunner().invoke(main, ["db", "recount", "--account", "1"])
    assert result.exit_code == 0 and "recounted 1 account" in result.output, result.output
    _rollup_matches_rows(db)


def test_analyst_views_answer_the_common_questions(db):
    at = datetime(2025, 5, 2, 10, tzinfo=UTC)
    write_page(db, "earnings", 1, [_earning(i, at) for i in range(4)], type="subscribes")
    payment = _earning(0, at)
    write_page(db, "chargebacks", 1, [{"id": 1, "createdAt": at.isoformat(), "paymentType": "subscribe", "payment": payment}])
    assert db.execute("SELECT transactions, net FROM earnings_net_per_day").fetchone() == (4, 32)
    month = db.execute("SELECT transactions, chargebacks, rate_by_count FROM chargeback_rate_per_month").fetchone()
    assert month[0] == 4 and month[1] == 1 and float(month[2]) == 0.25
    assert db.execute("SELECT count(*) FROM post_performance").fetchone()[0] == 0


def test_grant_readonly_role_reads_views_and_nothing_else(db, database_url, monkeypatch):
    role = f"analyst_{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("RELAY_DATABASE_URL", database_url)
    result = CliRunner().invoke(main, ["db", "grant-readonly", role, "--password", "secret-pw"])
    assert result.exit_code == 0, result.output
    again = CliRunner().invoke(main, ["db", "grant-readonly", role, "--password", "secret-pw"])
    assert again.exit_code == 0 and "updated" in again.output
    try:
        url = psycopg.conninfo.make_conninfo(database_url, user=role, password="secret-pw")
        with psycopg.connect(url, autocommit=True) as analyst:
            analyst.execute("SELECT * FROM earnings_net_per_day, chargeback_rate_per_month LIMIT 1")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                analyst.execute("SELECT * FROM api_keys")
            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                analyst.execute("CREATE TEMP TABLE t (x int)")
    finally:
        db.execute(f'DROP OWNED BY "{role}"')
        db.execute(f'DROP ROLE "{role}"')
