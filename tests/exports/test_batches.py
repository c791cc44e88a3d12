"""An export reads one keyset batch per statement (app/exports/rows.py): every row exactly
once, in order, across batch boundaries that split rows of the same second; and an export
that lasts far longer than the API's statement timeout still completes, since none of its
statements does."""

from __future__ import annotations

import asyncio
import csv
import io
import time

import psycopg
import pytest
from litestar.testing import TestClient

from app.asgi import create_app
from app.exports.rows import same_connection
from app.exports.run import checked_window, encoded
from tests.events.helpers import initial_sync, reader_key
from tests.fixtures.api import auth


@pytest.mark.slow
def test_an_export_in_small_batches_has_every_row_once_in_order_and_outlasts_the_statement_timeout(
    db, sync_settings, new_account, api_settings
):
    account_id = new_account(earnings=300, history_days=30)
    initial_sync(sync_settings, account_id)
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()
    # Ties: a third of the rows share one second, so batches of 7 split that second many times.
    db.execute(
        "UPDATE earnings SET created_at = (SELECT min(created_at) FROM earnings WHERE account_id = %(a)s) "
        "+ interval '1 day' WHERE account_id = %(a)s AND ctid IN "
        "(SELECT ctid FROM earnings WHERE account_id = %(a)s ORDER BY id LIMIT 100)",
        {"a": account_id},
    )
    stored = db.execute(
        "SELECT id FROM earnings WHERE account_id = %s ORDER BY created_at, id", (account_id,)
    ).fetchall()
    settings = api_settings.replace(export_batch_rows=7)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        answer = client.get(f"/v1/{account_id}/exports/earnings", headers=auth(reader_key(db, org_id)))
    assert answer.status_code == 200
    ids = [row["id"] for row in csv.DictReader(io.StringIO(answer.text))]
    assert ids == [row_id for (row_id,) in stored] and len(ids) == len(set(ids)) >= 200

    # Read slowly on a connection with a short statement timeout: the export lasts seconds,
    # each of its statements milliseconds.
    async def slowly() -> tuple[bytes, float]:
        async with await psycopg.AsyncConnection.connect(sync_settings.database_url, autocommit=True) as conn:
            await conn.execute("SET statement_timeout = 200")
            start, end = await checked_window(conn, account_id, "earnings", None, None)
            began, got = time.monotonic(), b""
            async for chunk in encoded(same_connection(conn), account_id, "earnings", "csv", start, end, batch=7):
                got += chunk
                await asyncio.sleep(0.03)  # the behaviour under test: a slow reader
            return got, time.monotonic() - began

    text, took = asyncio.run(slowly())
    assert text.decode() == answer.text and took > 1.0  # five statement timeouts, at least
