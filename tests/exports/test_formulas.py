"""CSV exports neutralise cells a spreadsheet would run as formulas (OWASP, "CSV Injection";
docs/data.md, "Exports"): a text cell that starts with =, +, -, @, a tab or a carriage return
gets a single quote in front. Numbers stay numbers (a negative amount is not text), and
Parquet keeps the stored values untouched."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal

import pyarrow.parquet as pq
import pytest

from app.exports.formats import CsvEncoder, neutralised
from tests.events.helpers import initial_sync, reader_key
from tests.fixtures.api import auth

FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


@pytest.mark.parametrize("text", FORMULAS)
def test_a_text_that_starts_like_a_formula_gets_a_single_quote(text):
    assert neutralised(text) == "'" + text


@pytest.mark.parametrize("text", ["paid", "", "1+1", "a=b", "'=already", "{\"id\": \"-1\"}"])
def test_other_text_is_left_alone(text):
    assert neutralised(text) == text


def test_the_csv_encoder_neutralises_text_cells_only():
    encoder = CsvEncoder("earnings")
    row = dict.fromkeys(encoder.names)
    row.update(id="=cmd|' /C calc'!A0", type="tip", status="-pending", currency="@USD", net=Decimal("-12.50"),
               amount=Decimal("-0.01"), payout_pending_days=-3, user_id=-7, created_at=datetime(2026, 1, 2, tzinfo=UTC),
               payload='{"net": -12.5}')
    (cells,) = csv.reader(io.StringIO(encoder.batch([tuple(row.values())]).decode()))
    got = dict(zip(encoder.names, cells, strict=True))
    assert got["id"] == "'=cmd|' /C calc'!A0" and got["status"] == "'-pending" and got["currency"] == "'@USD"
    assert (got["net"], got["amount"], got["payout_pending_days"], got["user_id"]) == ("-12.50", "-0.01", "-3", "-7")
    assert got["type"] == "tip" and got["payload"] == '{"net": -12.5}'
    assert encoder.start().decode().splitlines() == [",".join(encoder.names)]


@pytest.mark.slow
def test_exports_neutralise_formulas_in_csv_and_keep_them_in_parquet(db, sync_settings, new_account, api_client):
    account_id = new_account(earnings=200, history_days=20)
    initial_sync(sync_settings, account_id)
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()
    # By key, not ctid: on the Citus cluster a row's ctid is its shard's.
    (row_id,) = db.execute("UPDATE earnings SET status = '=1+2', currency = '@SUM(A1)', net = -12.50"
                           " WHERE account_id = %(a)s AND id = (SELECT min(id) FROM earnings WHERE account_id = %(a)s)"
                           " RETURNING id", {"a": account_id}).fetchone()
    key = reader_key(db, org_id)

    answer = api_client.get(f"/v1/{account_id}/exports/earnings", params={"format": "csv"}, headers=auth(key))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"  # one charset
    (row,) = [r for r in csv.DictReader(io.StringIO(answer.text)) if r["id"] == row_id]
    assert (row["status"], row["currency"], Decimal(row["net"])) == ("'=1+2", "'@SUM(A1)", Decimal("-12.50"))

    answer = api_client.get(f"/v1/{account_id}/exports/earnings", params={"format": "parquet"}, headers=auth(key))
    assert answer.headers["content-type"] == "application/vnd.apache.parquet"
    (row,) = [r for r in pq.read_table(io.BytesIO(answer.content)).to_pylist() if r["id"] == row_id]
    assert (row["status"], row["currency"], row["net"]) == ("=1+2", "@SUM(A1)", Decimal("-12.50"))
