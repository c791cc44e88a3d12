"""The synced tables' upsert, for both writers.

The sync engine (``sync/``) and the store-served routes (which write a live answer back
into the store) both write the synced tables. If each had its own mapping, the same
upstream row could be stored two ways and the store would answer differently depending on
who wrote last. So each table is one :class:`SyncedTable` here, in ``app`` (which ``sync``
may import), derived from its model's declaration (``app/db/declaration.py``):

- ``columns``: each typed column as a SQL expression over ``p``, the item's JSONB payload,
  and ``%(name)s`` constants of the query that returned it (the earnings ``type`` and
  ``tips_source``, a stats row's ``link_id``). PostgreSQL computes the columns during the
  merge, so a writer does no per-row Python work;
- ``key``: the conflict key (the model's primary key);
- :meth:`SyncedTable.write_sql`: the write from any row source, with what it keeps up to
  date (rollups, events, ordinals: ``app/store/upkeep.py``), run by :func:`write`. The
  write-back reads a JSON array parameter (:func:`write_items`); the sync's bulk writer
  reads the page it staged with COPY (``sync/writers.py``) and adds its run id and its
  bookkeeping.

Unchanged rows are not rewritten (``IS DISTINCT FROM``), so ``last_synced_at`` keeps
meaning "last changed". A changed row takes the time from the row it was given
(``excluded.last_synced_at``, its column default ``now()``): Citus refuses a function that is
not IMMUTABLE in ``DO UPDATE SET`` (docs/scaling.md, "What the survey found", item 5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from psycopg import AsyncConnection, AsyncCursor
from psycopg.types.json import Jsonb

from app.db.declaration import key_of, payload_columns, synced_tables
from app.db.metadata import metadata
from app.db.rows import one
from app.store.upkeep import ORDINAL_COLUMNS, ORDINAL_FROM, Upkeep, upkeep_of

_p = MappingProxyType


@dataclass(frozen=True, slots=True)
class SyncedTable:
    """One synced table: its typed columns (SQL over ``p``), its conflict key, and what a
    write of it keeps up to date (``app/store/upkeep.py``)."""

    name: str
    columns: Mapping[str, str]
    key: tuple[str, ...] = ("account_id", "id")
    upkeep: Upkeep = Upkeep("", (), ordinals=False)

    def write_sql(self, source: str, *, run_id: bool = False, more_ctes: str = "", more_columns: str = "") -> str:
        """The write of the items ``p`` that ``source`` yields (a FROM item with a ``p jsonb``
        column) for ``%(account_id)s``, with its upkeep; ``run_id``: also store
        ``%(run_id)s`` as ``sync_run_id``. Rows equal to the stored ones are left alone.

        Parameters: ``account_id``, ``run_id`` (the writing sync run; None for others) and
        the constants. It answers one row: the inserted and updated counts, the disturbed ordinal range
        where the table keeps ordinals (four columns, see :func:`write`), then
        ``more_columns``. ``more_ctes`` (each starting with a comma) may read ``counts``."""
        names = ["account_id", *self.columns, "payload"]
        values = ["%(account_id)s::bigint", *self.columns.values(), "p"]
        compared = [c for c in names if c not in self.key]
        assignments = [f"{c} = excluded.{c}" for c in compared]
        if run_id:
            names.append("sync_run_id")
            values.append("%(run_id)s::bigint")
            assignments.append("sync_run_id = excluded.sync_run_id")
        key = ", ".join(self.key)
        selected = ",\n           ".join(f"{v} AS {n}" for v, n in zip(values, names, strict=True))
        old = ""
        if self.upkeep.old_columns:
            # The stored rows by the page's ids: an index scan of the key, reading the
            # page's rows. (Statistics that never saw the account make any index on
            # ``account_id`` look like one row, and the planner may then read the account
            # once, filtering by id: docs/data.md. A LATERAL probe per id could read it once
            # per id, and a join may read the table.) One shard's statement on Citus.
            *_, id_column = self.key
            old = f"""
old AS (
    SELECT {", ".join(f"o.{c}" for c in self.upkeep.old_columns)} FROM {self.name} o
    WHERE o.account_id = %(account_id)s::bigint AND o.{id_column} = ANY (ARRAY(SELECT {id_column} FROM page))
),"""
        returning = "t.*, " if self.upkeep.ctes else ""
        # The upsert reads ``old`` (a count that is never negative), so ``old`` is read first
        # also where each CTE is a statement of its own (Citus); in one PostgreSQL statement
        # every CTE sees the rows as they were before it anyway.
        after_old = "\n    WHERE (SELECT count(*) FROM old) >= 0" if old else ""
        ordinals = (ORDINAL_COLUMNS, ORDINAL_FROM) if self.upkeep.ordinals else ("", "")
        return f"""
WITH page AS (
    SELECT DISTINCT ON ({key}) *
    FROM (SELECT {selected}
          FROM {source}) AS page
    ORDER BY {key}
),{old}
merged AS (
    INSERT INTO {self.name} AS t ({", ".join(names)})
    SELECT * FROM page{after_old}
    ON CONFLICT ({key}) DO UPDATE SET
        {", ".join(assignments)}, last_synced_at = excluded.last_synced_at
    WHERE ({", ".join(f"t.{c}" for c in compared)})
          IS DISTINCT FROM ({", ".join(f"excluded.{c}" for c in compared)})
    RETURNING {returning}(t.xmax = 0) AS inserted
),
counts AS (
    SELECT count(*) FILTER (WHERE inserted) AS inserted,
           count(*) FILTER (WHERE NOT inserted) AS updated
    FROM merged
){self.upkeep.ctes}{more_ctes}
SELECT counts.inserted, counts.updated{ordinals[0]}{more_columns} FROM counts{ordinals[1]}"""

    @property
    def lock_sql(self) -> str:
        """Serializes the writers of one (table, account) for the rest of the transaction
        (the upkeep's ``old`` is exact only then); ``{more}``: further columns."""
        return (f"SELECT pg_advisory_xact_lock(hashtext('relay.write.{self.name}'), "
                "hashint8(%(account_id)s::bigint)){more}")

    @property
    def renumber_sql(self) -> str:
        """The ordinals' renumbering of one account's disturbed range (migration 0020)."""
        return f"SELECT ord_{self.name}_renumber(%s, %s, %s, %s, %s)"


def answer_of(table: SyncedTable, account_id: int, row: Sequence[Any]) -> tuple[int, int, tuple, tuple | None]:
    """A write statement's answer: the inserted and updated counts, its ``more_columns``,
    and the renumbering's parameters where the write disturbed the ordinals (else None)."""
    inserted, updated, *more = row
    renumber = None
    if table.upkeep.ordinals:
        lo_at, lo_id, hi_at, hi_id, *more = more
        if lo_at is not None:
            renumber = (account_id, lo_at, lo_id, hi_at, hi_id)
    return inserted, updated, tuple(more), renumber


async def write(
    cur: AsyncCursor, table: SyncedTable, sql: str, params: Mapping[str, Any], *, more_locked: str = ""
) -> tuple[int, int, tuple]:
    """Run one write statement of ``table`` (:meth:`SyncedTable.write_sql`) with its lock
    before it and its renumbering after it, in the caller's transaction; ``more_locked``:
    further columns of the lock's statement. Returns the inserted and updated counts and the
    statement's ``more_columns``."""
    await cur.execute(table.lock_sql.format(more=more_locked), params)
    await cur.execute(sql, params)
    inserted, updated, more, renumber = answer_of(table, params["account_id"], one(await cur.fetchone()))
    if renumber is not None:
        await cur.execute(table.renumber_sql, renumber)
    return inserted, updated, more


TABLES: Mapping[str, SyncedTable] = _p({
    table.name: SyncedTable(table.name, _p(payload_columns(table)), key_of(table), upkeep_of(table))
    for table in synced_tables(metadata)
})

#: Every constant any expression names; unset ones are NULL.
CONSTANTS = ("type", "tips_source", "link_id")

_ITEMS = "jsonb_array_elements(%(page)s::jsonb) AS items(p)"


def write_items_sql(table: str) -> str:
    """Write of a JSON array of items (``%(page)s``) of one account into ``table``."""
    return TABLES[table].write_sql(_ITEMS)


_WRITES = {table: write_items_sql(table) for table in TABLES}


async def write_items(
    conn: AsyncConnection, table: str, account_id: int, items: Sequence[Any], **constants: Any
) -> None:
    """Write one page of upstream items of one account, with its upkeep (in a transaction,
    or a savepoint of the caller's)."""
    if not items:
        return
    params = {name: None for name in CONSTANTS} | constants | {"account_id": account_id, "run_id": None}
    async with conn.transaction(), conn.cursor() as cur:
        await write(cur, TABLES[table], _WRITES[table], {**params, "page": Jsonb(list(items))})
