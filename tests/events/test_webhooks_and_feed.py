"""Events reach a real receiver signed (Standard Webhooks), in order, once each once it
answers; the feed lists the same events; an export equals the sandbox's ground truth."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest
from standardwebhooks.webhooks import Webhook

from app.events.webhooks.endpoints import add_endpoint
from sandbox.core.checksum import checksum
from tests.events.helpers import (
    DAY,
    deliver_until_idle,
    events_of,
    initial_sync,
    next_incremental,
    read_feed,
    reader_key,
)
from tests.fixtures.api import auth
from tests.sync.helpers import money, sandbox_truth

pytestmark = pytest.mark.slow


def test_new_transactions_arrive_signed_in_order_once_each_after_the_receiver_was_down(
    db, database_url, sandbox, sync_settings, new_account, receiver, api_client, keyring
):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()
    endpoint_id, secret = add_endpoint(
        db, str(org_id), receiver.url, ["earnings.created", "earnings.updated"], keyring=keyring, allow_private=True
    )

    receiver.down = True
    sandbox.advance(2 * DAY)
    next_incremental(db, sync_settings, account_id)
    expected = [(f"evt_{e.hex}", t, p) for e, t, p in events_of(db, account_id) if t.startswith("earnings.")]
    assert {t for _, t, _ in expected} == {"earnings.created", "earnings.updated"}
    deliver_until_idle(sync_settings, database_url)
    assert receiver.requests and not receiver.accepted()  # refused: retried later
    (attempts, failing) = db.execute(
        "SELECT attempts, failing_since IS NOT NULL FROM webhook_endpoints WHERE id = %s", (endpoint_id,)
    ).fetchone()
    assert attempts >= 1 and failing

    receiver.down = False
    db.execute("UPDATE webhook_endpoints SET next_attempt_at = now() WHERE id = %s", (endpoint_id,))
    deliver_until_idle(sync_settings, database_url)

    verifier = Webhook(secret)
    got = []
    for headers, body in receiver.accepted():
        item = verifier.verify(body, headers)  # raises on a bad signature
        assert headers["webhook-id"] == item["id"]
        got.append((item["id"], item["type"], item["data"]))
    assert got == expected  # in feed order, each exactly once
    created = [p["id"] for _, t, p in got if t == "earnings.created"]
    assert len(created) == len(set(created)) > 0

    key = reader_key(db, org_id)
    feed, _ = read_feed(api_client, key)
    assert len(feed) == len(set(feed))
    assert [i for i in feed if i in {e for e, _, _ in expected}] == [e for e, _, _ in expected]


def test_csv_and_parquet_exports_of_earnings_have_the_count_and_checksum_of_the_ground_truth(
    db, sandbox, sync_settings, new_account, api_client
):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()
    key = reader_key(db, org_id)
    now = int(sandbox.clock()["now"])

    answer = api_client.get(f"/v1/{account_id}/exports/earnings", params={"format": "csv"}, headers=auth(key))
    assert answer.status_code == 200, answer.text
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert list(rows[0])[:4] == ["account_id", "id", "type", "tips_source"]
    keys = (f"{r['id']}|{r['status']}|{money(r['net'])}" for r in rows)
    assert checksum(keys) == sandbox_truth(sandbox, account_id, "earnings", 0, now)
    assert all(json.loads(r["payload"])["id"] == r["id"] for r in rows[:50])
    assert answer.headers["content-disposition"] == f'attachment; filename="earnings-{account_id}.csv"'

    answer = api_client.get(f"/v1/{account_id}/exports/earnings", params={"format": "parquet"}, headers=auth(key))
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/vnd.apache.parquet"
    table = pq.read_table(io.BytesIO(answer.content))
    assert table.column_names == list(rows[0])
    keys = (f"{r['id']}|{r['status']}|{money(r['net'])}" for r in table.select(["id", "status", "net"]).to_pylist())
    assert checksum(keys) == sandbox_truth(sandbox, account_id, "earnings", 0, now)

    outside = api_client.get(f"/v1/{account_id}/exports/earnings",
                             params={"end_date": "2099-01-01"}, headers=auth(key))
    assert outside.status_code == 409
    assert "stored coverage of earnings: 1970-01-01T00:00:00+00:00.." in outside.json()["error"]
