"""Each synced table is declared once, in its model (app/db/declaration.py); the writers, the
exports, the event types, the analysts' row-level security and the Citus distribution are
derived from it. These tests hold the declarations to what the migrations built (their
frozen copies and the migrated database) and to what Citus will require of them."""

from __future__ import annotations

import psycopg
import pytest
from alembic.script import ScriptDirectory

from app.db.declaration import declaration, key_of, payload_columns, synced_tables
from app.db.metadata import metadata
from app.db.migrate import alembic_config
from app.db.tenancy import distribution_column, per_account_tables, reference_tables, visible_to_analysts
from app.events.types import EVENT_TYPES
from app.exports.columns import RESOURCES
from app.store.mapping import TABLES

SYNCED = synced_tables(metadata)
#: Columns no writer computes from the payload: the account, the payload itself, bookkeeping.
BOOKKEEPING = {"account_id", "payload", "first_seen_at", "last_synced_at", "sync_run_id", "ord"}


def _migration(revision: str):
    return ScriptDirectory.from_config(alembic_config("postgresql://unused")).get_revision(revision).module


def test_every_synced_table_is_declared_and_every_typed_column_has_its_source():
    assert {t.name for t in SYNCED} == {"earnings", "chargebacks", "payout_requests", "posts", "tracking_links",
                                        "tracking_link_daily_stats"}
    for table in SYNCED:
        assert set(payload_columns(table)) == {c.name for c in table.columns} - BOOKKEEPING, table.name
        assert key_of(table)[0] == "account_id"
        assert declaration(table).time_column in table.columns


def test_the_writers_upsert_is_the_declaration():
    for table in SYNCED:
        written = TABLES[table.name]
        assert dict(written.columns) == payload_columns(table)
        assert written.key == key_of(table)


def test_the_exports_are_the_declared_resources_by_their_time_column():
    exported = {t.name: declaration(t).time_column for t in SYNCED if declaration(t).exported}
    assert {name: column for name, (_, column) in RESOURCES.items()} == exported
    assert set(exported) == {"earnings", "chargebacks", "payout_requests", "posts"}


def test_the_event_types_are_those_the_writers_write(database_url):
    """The declared events equal migration 0006's frozen table, each type is written by its
    table's write statement (app/store/upkeep.py), and no per-account table has a trigger
    left (Citus distributes no table with triggers: docs/scaling.md)."""
    frozen = _migration("0006_events_webhooks")._TABLES
    declared = {t.name: declaration(t) for t in SYNCED if declaration(t).events}
    assert set(frozen) == set(declared)
    for name, (time_column, key, fields) in frozen.items():
        assert declared[name].time_column == time_column
        assert key == key_of(metadata.tables[name])
        assert declared[name].events.updated_fields == (fields or ())
    for event_type in EVENT_TYPES:
        name, kind = event_type.split(".")
        if name in declared:
            assert f"'{event_type}'" in TABLES[name].closing_sql(), event_type
    with psycopg.connect(database_url) as conn:
        triggers = conn.execute(
            "SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal "
            "AND tgrelid = ANY (%s::regclass[])", ([t.name for t in per_account_tables(metadata)],)).fetchall()
    assert triggers == []


def test_row_security_covers_every_table_analysts_read(database_url):
    frozen = set(_migration("0015_analyst_row_security")._TABLES)  # later tables: their own migrations
    per_account = {t.name for t in visible_to_analysts(metadata)}
    assert frozen <= per_account
    with psycopg.connect(database_url) as conn:
        secured = {name for (name,) in conn.execute(
            "SELECT relname FROM pg_class WHERE relrowsecurity AND relkind = 'r'")}
    assert per_account <= secured


@pytest.mark.parametrize("table", per_account_tables(metadata), ids=lambda t: t.name)
def test_a_distributed_table_holds_its_distribution_column_in_every_unique_key(table):
    """Citus enforces a primary key or unique constraint only when it contains the
    distribution column (docs/scaling.md)."""
    column = distribution_column(table)
    assert column == "account_id"
    # A table without a key (the page write's staging) has no key to hold it.
    assert not table.primary_key.columns or key_of(table)[0] == column
    for constraint in table.constraints:
        if constraint.__class__.__name__ == "UniqueConstraint":
            assert column in {c.name for c in constraint.columns}, constraint


def test_the_distributed_tables_are_layout_b_of_the_scaling_doc():
    """docs/scaling.md's recommended layout: the account's tables distributed by account_id
    and co-located, every other table a plain table on the coordinator."""
    distributed = {t.name for t in metadata.sorted_tables if distribution_column(t)}
    assert distributed == {"earnings", "chargebacks", "payout_requests", "posts", "tracking_links",
                           "tracking_link_daily_stats", "earnings_daily", "posts_counters", "sync_state",
                           "sync_runs", "upstream_budget", "sync_page_rows", "sync_page_old"}


def test_the_other_tables_stay_on_the_coordinator():
    local = {t.name for t in metadata.sorted_tables if distribution_column(t) is None} - {
        t.name for t in reference_tables(metadata)}
    assert {"accounts", "api_keys", "usage_ledger", "sync_tasks", "events", "analyst_roles"} <= local


def test_the_one_reference_table_is_what_the_policies_read_and_points_nowhere():
    """On Citus the policies run beside the shards, so what they read is on every node; a
    reference table may not point at a coordinator table (docs/scaling.md, item 3)."""
    (table,) = reference_tables(metadata)
    assert table.name == "analyst_scopes" and distribution_column(table) is None
    assert not table.foreign_keys
