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
- :meth:`SyncedTable.upsert_sql`: the upsert from any row source. The write-back reads a
  JSON array parameter (:func:`write_items`); the sync's bulk writer reads the page it
  staged with COPY (``sync/writers.py``) and adds its run id and counters.

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

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from app.db.declaration import key_of, payload_columns, synced_tables
from app.db.metadata import metadata

_p = MappingProxyType


@dataclass(frozen=True, slots=True)
class SyncedTable:
    """One synced table: its typed columns (SQL over ``p``) and its conflict key."""

    name: str
    columns: Mapping[str, str]
    key: tuple[str, ...] = ("account_id", "id")

    def upsert_sql(self, source: str, *, run_id: bool = False) -> str:
        """``INSERT .. ON CONFLICT`` of the items ``p`` that ``source`` yields (a FROM item
        with a ``p jsonb`` column) for ``%(account_id)s``; ``run_id``: also store
        ``%(run_id)s`` as ``sync_run_id``. Rows equal to the stored ones are left alone."""
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
        return f"""
INSERT INTO {self.name} AS t ({", ".join(names)})
SELECT DISTINCT ON ({key}) *
FROM (SELECT {selected}
      FROM {source}) AS page
ORDER BY {key}
ON CONFLICT ({key}) DO UPDATE SET
    {", ".join(assignments)}, last_synced_at = excluded.last_synced_at
WHERE ({", ".join(f"t.{c}" for c in compared)})
      IS DISTINCT FROM ({", ".join(f"excluded.{c}" for c in compared)})"""


TABLES: Mapping[str, SyncedTable] = _p({
    table.name: SyncedTable(table.name, _p(payload_columns(table)), key_of(table))
    for table in synced_tables(metadata)
})

#: Every constant any expression names; unset ones are NULL.
CONSTANTS = ("type", "tips_source", "link_id")

_ITEMS = "jsonb_array_elements(%(page)s::jsonb) AS items(p)"


def write_items_sql(table: str) -> str:
    """Upsert of a JSON array of items (``%(page)s``) of one account into ``table``."""
    return TABLES[table].upsert_sql(_ITEMS)


_WRITES = {table: write_items_sql(table) for table in TABLES}


async def write_items(
    conn: AsyncConnection, table: str, account_id: int, items: Sequence[Any], **constants: Any
) -> None:
    """Upsert one page of upstream items of one account (one statement)."""
    if not items:
        return
    params = {name: None for name in CONSTANTS} | constants
    await conn.execute(_WRITES[table], {**params, "account_id": account_id, "page": Jsonb(list(items))})
