"""The one sync writer: COPY a page into a temporary table, then merge it in one statement.

For a page of any resource::

    COPY sync_page (p) FROM STDIN                   -- the payloads, one JSON text per line
    INSERT INTO <table> (...) SELECT <column expressions over p> FROM sync_page
    ON CONFLICT (<key>) DO UPDATE SET ...
    WHERE (<table>.cols, payload) IS DISTINCT FROM (excluded.cols, payload)

so a row that did not change is not rewritten (no new tuple, no index churn), and the
statement reports how many rows it inserted and updated; the rest were unchanged.

The typed columns are computed by PostgreSQL from the payload (``Resource.columns``): the
worker only encodes each row once, and the page goes to the server in one COPY write.
The caller runs ``write`` inside the transaction that also stores the cursor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from psycopg import AsyncConnection

from sync.resources import Resource

# ON COMMIT DELETE ROWS: each page's transaction starts with an empty staging table, and
# the table is created once per connection (temporary tables are per session).
_STAGING_DDL = "CREATE TEMP TABLE IF NOT EXISTS sync_page (p jsonb NOT NULL) ON COMMIT DELETE ROWS"
_COPY = "COPY sync_page (p) FROM STDIN"

_encode = msgspec.json.Encoder().encode


@dataclass(frozen=True, slots=True)
class WriteCounts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0

    def __add__(self, other: WriteCounts) -> WriteCounts:
        return WriteCounts(
            self.inserted + other.inserted,
            self.updated + other.updated,
            self.unchanged + other.unchanged,
        )


def copy_text(rows: Sequence[Any]) -> bytes:
    """Rows as COPY text: one compact JSON document per line.

    JSON never holds a raw newline or tab (the encoder escapes them), so the only COPY
    escape needed is doubling backslashes, done once over the whole buffer.
    """
    if not rows:
        return b""
    return b"\n".join(map(_encode, rows)).replace(b"\\", b"\\\\") + b"\n"


def merge_sql(resource: Resource) -> str:
    """The merge statement of ``resource`` (parameters: account_id, run_id, constants)."""
    columns = list(resource.columns)
    expressions = [resource.columns[c] for c in columns]
    names = ["account_id", *columns, "payload", "sync_run_id"]
    values = ["%(account_id)s::bigint", *expressions, "p", "%(run_id)s::bigint"]
    key = ", ".join(resource.key)
    compared = [c for c in names if c not in resource.key and c != "sync_run_id"]
    selected = ",\n               ".join(f"{v} AS {n}" for v, n in zip(values, names, strict=True))
    return f"""
WITH merged AS (
    INSERT INTO {resource.name} AS t ({", ".join(names)})
    SELECT DISTINCT ON ({key}) *
    FROM (SELECT {selected}
          FROM sync_page) AS page
    ORDER BY {key}
    ON CONFLICT ({key}) DO UPDATE SET
        {", ".join(f"{c} = excluded.{c}" for c in compared)},
        sync_run_id = excluded.sync_run_id,
        last_synced_at = now()
    WHERE ({", ".join(f"t.{c}" for c in compared)})
          IS DISTINCT FROM ({", ".join(f"excluded.{c}" for c in compared)})
    RETURNING (xmax = 0) AS inserted
)
SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM merged
"""


class PageWriter:
    """Writes pages of one resource; holds its prepared statement text."""

    def __init__(self, resource: Resource) -> None:
        self.resource = resource
        self.sql = merge_sql(resource)

    async def prepare(self, conn: AsyncConnection) -> None:
        await conn.execute(_STAGING_DDL)

    async def write(
        self,
        conn: AsyncConnection,
        rows: Sequence[Any],
        *,
        account_id: int,
        run_id: int | None,
        constants: Mapping[str, Any],
    ) -> WriteCounts:
        """Stage and merge one page. Must run inside a transaction of its own: the staging
        table empties at commit."""
        if not rows:
            return WriteCounts()
        async with conn.cursor() as cur:
            async with cur.copy(_COPY) as copy:
                await copy.write(copy_text(rows))
            await cur.execute(self.sql, {**constants, "account_id": account_id, "run_id": run_id})
            inserted, updated = await cur.fetchone()
        # Staged rows neither inserted nor updated (or duplicates of another row of the same
        # page) were left as they were.
        return WriteCounts(inserted, updated, len(rows) - inserted - updated)
