"""RELAY_DATABASE_READ_URL: store reads (coverage and rows) go to the read database, the
gate and write-backs stay on the primary.

A second database stands in for the streaming replica (docs/scaling.md says why and how
a real replica was checked): it holds the synced rows and their coverage, the primary
holds the organization and key only, so a store answer can only have come from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from app.db.migrate import upgrade
from app.settings import Settings
from tests.fixtures.api import ApiCaller, on_sandbox
from tests.fixtures.database import scratch_database, truncate_all


@pytest.fixture(scope="module")
def read_database_url(postgres_server_url: str) -> Iterator[str]:
    with scratch_database(postgres_server_url, "relay_read") as url:
        upgrade(url)
        yield url


@pytest.fixture
def read_db(read_database_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(read_database_url, autocommit=True) as conn:
        truncate_all(conn)
        yield conn


@pytest.fixture
def api_settings(settings: Settings, sandbox, read_database_url: str) -> Settings:
    return on_sandbox(settings, sandbox, database_read_url=read_database_url)


def _copy_rows(source: psycopg.Connection, target: psycopg.Connection, table: str, where: str, value) -> None:
    """Copy rows as a replica would have them (the platform rows the synced rows refer to)."""
    with source.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"SELECT * FROM {table} WHERE {where} = %s", (value,)).fetchall()
    for row in rows:
        columns = ", ".join(row)
        marks = ", ".join(["%s"] * len(row))
        values = [Jsonb(v) if isinstance(v, dict | list) else v for v in row.values()]
        target.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)


@pytest.fixture
def replica_api(api_caller: ApiCaller, db: psycopg.Connection, read_db: psycopg.Connection) -> ApiCaller:
    """The store API whose synced rows are written into the read database only."""
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (api_caller.account_id,)).fetchone()
    _copy_rows(db, read_db, "organizations", "id", org_id)
    _copy_rows(db, read_db, "accounts", "id", api_caller.account_id)
    api_caller.sandbox.configure_account(api_caller.account_id, chargebacks=40, history_days=200)
    on_replica = replace(api_caller, db=read_db)
    on_replica.store.fill_snapshot("chargebacks", "/payouts/chargebacks")
    return on_replica


def test_store_answers_come_from_the_read_database(replica_api: ApiCaller, db: psycopg.Connection):
    body = replica_api.ok("/v1/{account}/payouts/chargebacks", start_date="2025-01-01 00:00:00")

    assert body["_meta"]["_cache"]["source"] == "store"
    assert body["data"]["list"]  # rows exist only in the read database
    assert db.execute("SELECT count(*) FROM chargebacks").fetchone()[0] == 0
    live = replica_api.ok("/v1/{account}/payouts/chargebacks", start_date="2025-01-01 00:00:00", fresh="true")
    assert body["data"]["list"] == live["data"]["list"]


def test_without_coverage_on_the_read_database_the_answer_is_live(
    replica_api: ApiCaller, read_db: psycopg.Connection, db: psycopg.Connection
):
    # The primary claiming coverage changes nothing: coverage is read where the rows are.
    db.execute(
        "INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end) "
        "VALUES (%s, 'chargebacks', 'epoch', now())",
        (replica_api.account_id,),
    )
    read_db.execute("DELETE FROM sync_state WHERE account_id = %s", (replica_api.account_id,))

    body = replica_api.ok("/v1/{account}/payouts/chargebacks", start_date="2025-01-01 00:00:00")

    assert body["_meta"]["_cache"]["source"] == "upstream"
