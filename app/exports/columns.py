"""What an export holds per resource: the table's columns, in the table's order, typed.

The columns are those of the synced table's model (``app/db/synced.py``; its declaration
says whether it is exported and by which time column), so an export
always matches the documented table (docs/data.md): the key, the typed columns, then
``payload`` (the upstream row as JSON text), ``first_seen_at`` and ``last_synced_at``.
``columns_of`` is the one definition of that order: the export's SELECT list
(``app.exports.rows.rows_sql``), the CSV header and the Parquet schema all come from it, so
a row tuple is read by position in the order its header names
(tests/exports/test_columns.py holds it to docs/data.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
from sqlalchemy import ARRAY, BigInteger, Boolean, Date, DateTime, Integer, Numeric, Table, Text
from sqlalchemy.dialects.postgresql import JSONB

from app.db.declaration import declaration, synced_tables
from app.db.metadata import metadata

#: The resources one can export (the synced tables declared ``exported``), and the column
#: the window applies to (their time column: coverage time).
RESOURCES: dict[str, tuple[Table, str]] = {
    table.name: (table, declaration(table).time_column)
    for table in synced_tables(metadata) if declaration(table).exported
}

#: Bookkeeping, not data: the sync run that wrote a row, and the offset-paging ordinal
#: (``ord``, renumbered as rows arrive, so meaningless outside the store).
_LEFT_OUT = {"sync_run_id", "ord"}
#: Numeric columns are exported with this scale (amounts have 2 decimals, post times 6).
DECIMAL = pa.decimal128(38, 6)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    arrow: pa.DataType
    sql: str  # the select expression


def _arrow(column) -> tuple[pa.DataType, str]:
    kind = column.type
    name = column.name
    if isinstance(kind, JSONB):
        return pa.string(), f"{name}::text"
    if isinstance(kind, ARRAY):
        item = pa.int64() if isinstance(kind.item_type, BigInteger) else pa.string()
        return pa.list_(item), name
    if isinstance(kind, BigInteger):
        return pa.int64(), name
    if isinstance(kind, Integer):
        return pa.int32(), name
    if isinstance(kind, Numeric):
        return DECIMAL, name
    if isinstance(kind, Boolean):
        return pa.bool_(), name
    if isinstance(kind, DateTime):
        return pa.timestamp("us", tz="UTC"), name
    if isinstance(kind, Date):
        return pa.date32(), name
    if isinstance(kind, Text):
        return pa.string(), name
    raise TypeError(f"no export type for column {name} ({kind!r})")


def columns_of(resource: str) -> list[Column]:
    table, _ = RESOURCES[resource]
    found = []
    for column in table.columns:
        if column.name in _LEFT_OUT:
            continue
        arrow, sql = _arrow(column)
        found.append(Column(column.name, arrow, sql))
    return found


def schema_of(resource: str) -> pa.Schema:
    return pa.schema([pa.field(c.name, c.arrow) for c in columns_of(resource)])
