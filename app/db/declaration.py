"""What a synced table declares once, in its model, and what the rest is derived from.

A synced table is one model class in ``app/db/synced.py``. It declares:

- each typed column beside its source, the SQL expression over ``p`` (the upstream item's
  JSONB payload) that computes it (``mapped_column(..., info=payload("p->>'id'"))``);
- its key: the model's primary key;
- ``__synced__``, a :class:`Synced`: the time column (the window of exports, the events'
  coverage check), whether it is exported, and the event types its rows write;
- with an ``ord`` column (``ordinal_column()``): that its rows keep dense ordinals;
- a rollup over it is declared on the rollup's model (``__rollup__``, a :class:`Rollup`,
  ``app/db/rollups.py``);
- through ``SyncedRow``, that it is per-account (``app/db/tenancy.py``): the column that
  names the account, analysts' row-level security, the Citus distribution column.

From it come the writers' upsert and what it keeps up to date in the same statement
(``app.store.mapping.TABLES``, ``app.store.upkeep``: rollups, events, ordinals), the exports' resources and
columns (``app.exports.columns``), the analysts' grants (``app.db.readonly``) and the event
types (``app.events.types``). tests/db/test_declaration.py holds the declarations to the
migrations' frozen copies (the events triggers, row-level security).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import MetaData, Table

#: The keys of ``Table.info`` and ``Column.info`` this module reads.
SYNCED = "synced"
PAYLOAD = "payload"
ROLLUP = "rollup"
ORDINAL = "ordinal"


def payload(expression: str) -> dict[str, str]:
    """``Column.info`` of a typed column computed from the payload by ``expression``
    (SQL over ``p``; ``%(name)s`` reads a constant of the query that returned the row)."""
    return {PAYLOAD: expression}


@dataclass(frozen=True, slots=True)
class Events:
    """The change events a synced table's rows write (migration 0006's triggers)."""

    created: str  # what ``<table>.created`` means
    updated_fields: tuple[str, ...] = ()  # a change of one is ``<table>.updated``
    updated: str | None = None  # what ``<table>.updated`` means

    def types(self, table: str) -> dict[str, str]:
        found = {f"{table}.created": self.created}
        if self.updated_fields:
            found[f"{table}.updated"] = self.updated or f"a {table} row changed"
        return found


@dataclass(frozen=True, slots=True)
class Synced:
    """A synced table's declaration (``__synced__`` on its model)."""

    time_column: str
    exported: bool = True
    events: Events | None = None


@dataclass(frozen=True, slots=True)
class Rollup:
    """A table of per-group sums over a synced table's rows (``__rollup__`` on its model).

    ``group`` and ``sums`` map the rollup's columns to SQL over ``r``, one row of the
    source: a row adds its ``sums`` to its group, and a changed row first takes its old
    values away. The writers keep it in the statement that writes the rows."""

    source: str
    group: Mapping[str, str]
    sums: Mapping[str, str]


def synced_tables(metadata: MetaData) -> list[Table]:
    """Every synced table, in the order the models declare them."""
    return [t for t in metadata.tables.values() if SYNCED in t.info]


def declaration(table: Table) -> Synced:
    return table.info[SYNCED]


def payload_columns(table: Table) -> dict[str, str]:
    """Each typed column's source expression, in the table's column order."""
    return {c.name: c.info[PAYLOAD] for c in table.columns if PAYLOAD in c.info}


def key_of(table: Table) -> tuple[str, ...]:
    return tuple(c.name for c in table.primary_key.columns)


def rollups_of(metadata: MetaData, source: str) -> list[tuple[str, Rollup]]:
    """(table, rollup) of every rollup over ``source``."""
    return [(t.name, t.info[ROLLUP]) for t in metadata.tables.values()
            if ROLLUP in t.info and t.info[ROLLUP].source == source]


def has_ordinals(table: Table) -> bool:
    """Whether the table's rows keep dense per-account ordinals (``ord``)."""
    return any(c.info.get(ORDINAL) for c in table.columns)
