"""``relay migrate`` and ``relay db distribute`` on a Citus coordinator (app/db/citus.py): the
account tables distributed by account_id and co-located, the tables declared on every node
reference tables, every other table left plain on the coordinator; a live database
converted online; plain PostgreSQL untouched."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import psycopg
import pytest
from click.testing import CliRunner, Result

from app.cli import main
from app.db.citus import distributed_tables
from app.db.metadata import metadata
from app.db.migrate import upgrade
from app.db.tenancy import per_account_tables, reference_tables
from bench.citus_cluster import running_cluster, shard_placements
from tests.db.conftest import fill_row
from tests.fixtures.database import TEST_KEYS_ENV
from tests.fixtures.threads import in_background

pytestmark = pytest.mark.slow

DISTRIBUTED = {table for table, _ in distributed_tables()}
REFERENCE = {table.name for table in reference_tables(metadata)}
ACCOUNTS = range(7001, 7021)


def relay(url: str, *args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"RELAY_DATABASE_URL": url, **TEST_KEYS_ENV})


def citus_tables(conn: psycopg.Connection) -> dict[str, tuple[str, str, int]]:
    rows = conn.execute("SELECT table_name::text, citus_table_type, distribution_column, colocation_id"
                        " FROM citus_tables").fetchall()
    return {table: (kind, column, group) for table, kind, column, group in rows}


def assert_distributed_as_declared(conn: psycopg.Connection, workers: list[int]) -> None:
    tables = citus_tables(conn)
    assert set(tables) == DISTRIBUTED | REFERENCE  # every other table stays a plain table on the coordinator
    assert {table for table, (kind, _, _) in tables.items() if kind == "reference"} == REFERENCE
    distributed = {table: (kind, column, group) for table, (kind, column, group) in tables.items()
                   if table in DISTRIBUTED}
    assert {kind for kind, _, _ in distributed.values()} == {"distributed"}
    assert {column for _, column, _ in distributed.values()} == {"account_id"}
    assert len({group for _, _, group in distributed.values()}) == 1  # co-located
    for table in ("earnings", "chargebacks", "payout_requests", "posts", "tracking_links"):
        assert set(shard_placements(conn, table)) == set(workers), table


def fill(conn: psycopg.Connection, tables: list[str], rows: int = 3) -> dict[str, int]:
    """Rows of every account in ``tables``; every table's count."""
    for table in tables:
        for account_id in ACCOUNTS:
            for n in range(rows):
                fill_row(conn, metadata.tables[table], account_id, n)
    return row_counts(conn)


def row_counts(conn: psycopg.Connection) -> dict[str, int]:
    return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in sorted(DISTRIBUTED | REFERENCE)}


@dataclass
class Writes:
    """Rows a writer inserted into earnings one at a time, and what failed."""

    inserted: int = 0
    errors: list[str] = field(default_factory=list)


@contextmanager
def writing_earnings(url: str) -> Iterator[Writes]:
    """A connection inserting earnings rows until the block ends (the API's write-back, a
    worker's pages: writes that must go on while the tables are converted)."""
    writes, stop = Writes(), threading.Event()
    table = metadata.tables["earnings"]

    def write() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            n = 1000
            while not stop.is_set():
                try:
                    fill_row(conn, table, ACCOUNTS[n % len(ACCOUNTS)], n)
                    writes.inserted += 1
                except psycopg.Error as exc:
                    writes.errors.append(str(exc))
                n += 1

    with in_background(write, stop, join_timeout=30):
        yield writes


def test_relay_migrate_on_a_coordinator_distributes_every_declared_table_colocated(citus_cluster,
                                                                                   citus_empty_database):
    with citus_empty_database() as url:
        result = relay(url, "migrate")
        assert result.exit_code == 0, result.output
        assert "earnings: create_distributed_table..." in result.output
        assert (f"{len(DISTRIBUTED)} tables distributed by account_id, co-located; {len(REFERENCE)} reference tables"
                in result.output)
        with psycopg.connect(url) as conn:
            assert_distributed_as_declared(conn, [w.port for w in citus_cluster.workers])


def test_relay_db_distribute_again_changes_nothing(citus_cluster, citus_empty_database):
    with citus_empty_database() as url:
        upgrade(url)  # the schema as one PostgreSQL has it: nothing distributed
        assert relay(url, "db", "distribute").exit_code == 0
        with psycopg.connect(url) as conn:
            before = citus_tables(conn)
        again = relay(url, "db", "distribute")
        assert again.exit_code == 0, again.output
        assert f"0 tables converted, {len(DISTRIBUTED | REFERENCE)} already were" in again.output
        assert "earnings: already distributed" in again.output
        assert "analyst_scopes: already a reference table" in again.output
        with psycopg.connect(url) as conn:
            assert citus_tables(conn) == before


def test_relay_db_distribute_converts_a_live_database_online_and_loses_no_row(citus_cluster, citus_empty_database):
    with citus_empty_database() as url:
        upgrade(url)  # the schema as one PostgreSQL has it: nothing distributed
        with psycopg.connect(url, autocommit=True) as conn:
            # Two tables with rows (each copied online takes seconds), the others empty.
            before = fill(conn, ["earnings", "sync_state"])
            conn.execute("ANALYZE")
        with writing_earnings(url) as writes:
            result = relay(url, "db", "distribute")
        assert result.exit_code == 0, result.output
        assert writes.errors == [] and writes.inserted > 0
        assert "earnings: create_distributed_table_concurrently (~60 rows)..." in result.output
        assert "sync_state: create_distributed_table_concurrently (~60 rows)..." in result.output
        assert "posts: create_distributed_table..." in result.output
        assert f"{len(DISTRIBUTED | REFERENCE)} tables converted, 0 already were" in result.output
        with psycopg.connect(url) as conn:
            assert_distributed_as_declared(conn, [w.port for w in citus_cluster.workers])
            assert row_counts(conn) == {**before, "earnings": before["earnings"] + writes.inserted}
            # The coordinator keeps no copy of the rows in its own tables.
            conn.execute("SET citus.enable_manual_changes_to_shards = on")
            assert conn.execute("SELECT pg_relation_size('earnings')").fetchone() == (0,)


def test_online_without_logical_wal_says_what_to_set_and_offline_converts(citus_ready):
    with running_cluster(workers=1, wal_level="replica") as cluster, cluster.scratch_database() as url:
        upgrade(url)  # the schema as one PostgreSQL has it: nothing distributed
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO analyst_scopes (role_name, all_accounts, account_ids) VALUES ('r', false, '{1}')")
            filled = fill(conn, [t.name for t in per_account_tables(metadata)], rows=1)
            assert all(filled.values()), filled
        refused = relay(url, "db", "distribute")
        assert refused.exit_code == 1
        assert "online distribution needs wal_level = logical on the coordinator (it is replica)" in refused.output
        assert "--offline" in refused.output
        offline = relay(url, "db", "distribute", "--offline")
        assert offline.exit_code == 0, offline.output
        with psycopg.connect(url) as conn:
            assert_distributed_as_declared(conn, [cluster.workers[0].port])
            assert row_counts(conn) == filled
            conn.execute("SET citus.enable_manual_changes_to_shards = on")
            assert conn.execute("SELECT pg_relation_size('earnings')").fetchone() == (0,)


def test_on_plain_postgresql_migrate_distributes_nothing_and_distribute_refuses(empty_database):
    with empty_database() as url:
        migrated = relay(url, "migrate")
        assert migrated.exit_code == 0, migrated.output
        assert migrated.output == "database migrated to head\n"
        refused = relay(url, "db", "distribute")
        assert refused.exit_code == 1
        assert "not a Citus coordinator" in refused.output
