"""The tables' Citus kinds on a cluster (docs/scaling.md, "Past one PostgreSQL", layout B).

What each table becomes its model declares once (``app/db/tenancy.py``): a per-account
table is distributed by its account column (``distribution_column``), every one co-located
with the first, so an account's rows of every table live on one worker and its reads and
writes are single-shard; a table declared ``on_every_node()`` (what the analysts' policies
read on the workers) becomes a reference table; every other table stays a plain table on
the coordinator.

:func:`distribute` converts what is not converted yet and skips the rest, so it can run
after every migration (``relay migrate`` on a coordinator) and again on an existing
database (``relay db distribute``). Two ways:

- in one transaction (``online=False``): ``create_reference_table`` and
  ``create_distributed_table`` for every table, copying the rows while writes to them
  wait; what a fresh or empty database gets;
- online: one table per call, each committed on its own; a per-account table with rows by
  ``create_distributed_table_concurrently``, which copies it by logical replication while
  writes go on (it needs ``wal_level = logical``, checked first); an empty table, or a
  reference table (small; Citus has no online way), with a short lock.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

import psycopg
from psycopg import sql

from app.db.metadata import metadata
from app.db.rows import one
from app.db.tenancy import distribution_column, reference_tables

logger = logging.getLogger(__name__)


class DistributionError(Exception):
    """The database cannot be distributed as asked; the message says why and what to do."""


class Method(StrEnum):
    """How a table gets its Citus kind."""

    SKIPPED = "already done"
    REFERENCE = "create_reference_table"
    IN_TRANSACTION = "create_distributed_table"
    CONCURRENTLY = "create_distributed_table_concurrently"


@dataclass(frozen=True, slots=True)
class Step:
    """One table's conversion: reported when it starts (``seconds`` None) and when it is done."""

    table: str
    method: Method
    rows: int  # the planner's estimate: what a conversion's length goes with
    column: str | None = None  # the distribution column; None: a reference table
    colocate_with: str | None = None
    seconds: float | None = None

    def as_record(self) -> dict[str, object]:
        return {"table": self.table, "method": self.method.value, "rows_estimate": self.rows,
                "column": self.column, "colocate_with": self.colocate_with, "seconds": self.seconds}


Progress = Callable[[Step], None]


def distributed_tables() -> list[tuple[str, str]]:
    """(table, distribution column) of every table declared with one, in dependency order."""
    return [(t.name, column) for t in metadata.sorted_tables if (column := distribution_column(t)) is not None]


def is_coordinator(conn: psycopg.Connection) -> bool:
    """Whether the database has the citus extension on its coordinator. A worker's database
    has it too: migrating one directly is refused, its tables come from the coordinator."""
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone() is None:
        return False
    if not _value(conn, "SELECT citus_is_coordinator()"):
        raise DistributionError("this database is on a Citus worker node: run relay against the coordinator")
    return True


def distribute(conn: psycopg.Connection, *, online: bool, progress: Progress | None = None) -> list[Step]:
    """Give every declared table its Citus kind: the reference tables first (the policies of
    the distributed ones read them), then the distributed tables, co-located with the first.
    The steps taken, one per table (``SKIPPED`` for those done before). ``conn`` must be in
    autocommit mode."""
    if not is_coordinator(conn):
        raise DistributionError("the database has no citus extension: it is not a Citus coordinator")
    kinds = _citus_tables(conn)
    steps = [_plan_reference(conn, table.name, kinds) for table in reference_tables(metadata)]
    declared = distributed_tables()
    # The group's first table: one already distributed (a rerun), else the first declared.
    anchor = next((table for table, _ in declared if table in kinds), declared[0][0])
    steps += [_plan_distributed(conn, table, column, anchor, kinds, online) for table, column in declared]
    if online and any(step.method is Method.CONCURRENTLY for step in steps):
        _check_online_possible(conn)
    report = _reporter(progress)
    if online:
        return [_run(conn, step, report) for step in steps]
    with conn.transaction():
        return [_run(conn, step, report) for step in steps]


def _plan_reference(conn: psycopg.Connection, table: str, kinds: dict[str, tuple[str, str | None, int]]) -> Step:
    if table in kinds and kinds[table][0] != "reference":
        raise DistributionError(f"{table} is a {kinds[table][0]} table, its model declares a reference table")
    return Step(table, Method.SKIPPED if table in kinds else Method.REFERENCE, _estimated_rows(conn, table))


def _plan_distributed(conn: psycopg.Connection, table: str, column: str, anchor: str,
                      kinds: dict[str, tuple[str, str | None, int]], online: bool) -> Step:
    if table in kinds:
        kind, by, group = kinds[table]
        if (kind, by) != ("distributed", column):
            raise DistributionError(f"{table} is a {kind} table by {by}, its model declares distributed by {column}")
        if group != kinds[anchor][2]:
            raise DistributionError(f"{table} is distributed but not co-located with {anchor}: "
                                    f"SELECT update_distributed_table_colocation('{table}', '{anchor}')")
        method = Method.SKIPPED
    elif online and _has_rows(conn, table):
        method = Method.CONCURRENTLY
    else:
        method = Method.IN_TRANSACTION
    # The first table opens a co-location group of its own; the others join it.
    colocate_with = "none" if table == anchor else anchor
    return Step(table, method, _estimated_rows(conn, table), column, colocate_with)


def _run(conn: psycopg.Connection, step: Step, report: Progress) -> Step:
    """Convert the step's table; the step done, with its time."""
    report(step)
    if step.method is Method.SKIPPED:
        return step
    started = time.monotonic()
    call = sql.SQL("SELECT {}(%s)").format(sql.Identifier(step.method.value))
    args: tuple[str, ...] = (step.table,)
    if step.column is not None:
        call = sql.SQL("SELECT {}(%s, %s, colocate_with => %s)").format(sql.Identifier(step.method.value))
        args = (step.table, step.column, step.colocate_with or "default")
    if step.method is Method.CONCURRENTLY:
        conn.execute(call, args)  # outside any transaction block, as it must be
    else:
        # A savepoint inside distribute's transaction, a transaction of its own online.
        with conn.transaction():
            conn.execute(call, args)
            # The copy leaves the rows in the coordinator's own table, where nothing reads them.
            conn.execute("SELECT truncate_local_data_after_distributing_table(%s)", (step.table,))
    done = replace(step, seconds=round(time.monotonic() - started, 3))
    report(done)
    return done


def _reporter(progress: Progress | None) -> Progress:
    def report(step: Step) -> None:
        event = ("citus_table_skipped" if step.method is Method.SKIPPED
                 else "citus_table_converting" if step.seconds is None else "citus_table_converted")
        logger.info(event, extra=step.as_record())
        if progress is not None:
            progress(step)

    return report


def _check_online_possible(conn: psycopg.Connection) -> None:
    """An online copy replicates logically from the coordinator; say what is missing."""
    wal_level = _value(conn, "SHOW wal_level")
    if wal_level != "logical":
        raise DistributionError(
            f"online distribution needs wal_level = logical on the coordinator (it is {wal_level}): "
            "ALTER SYSTEM SET wal_level = logical and restart it (the workers too, to rebalance "
            "later), or distribute with --offline, which blocks writes to each table while it is copied"
        )
    plugins = _value(conn, "SELECT current_setting('output_plugin_libraries', true)")
    if plugins is not None and "citus" not in [p.strip() for p in plugins.split(",")]:
        raise DistributionError(
            f"output_plugin_libraries ({plugins}) leaves out citus, whose decoder the online copy uses: add it"
        )


def _citus_tables(conn: psycopg.Connection) -> dict[str, tuple[str, str | None, int]]:
    """Each Citus table's kind (distributed, reference, local), distribution column and
    co-location group."""
    rows = conn.execute(
        "SELECT table_name::text, citus_table_type, nullif(distribution_column, '<none>'), colocation_id"
        " FROM citus_tables"
    ).fetchall()
    return {table: (kind, column, group) for table, kind, column, group in rows}


def _has_rows(conn: psycopg.Connection, table: str) -> bool:
    return conn.execute(sql.SQL("SELECT 1 FROM {} LIMIT 1").format(sql.Identifier(table))).fetchone() is not None


def _estimated_rows(conn: psycopg.Connection, table: str) -> int:
    """The planner's estimate (-1: never analyzed); a count would read the whole table."""
    return max(_value(conn, "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass", table), 0)


def _value(conn: psycopg.Connection, query: str, *params: object):
    return one(conn.execute(query, params).fetchone())[0]
