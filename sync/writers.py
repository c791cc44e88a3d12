"""The one sync writer: COPY a page into a temporary table, then merge it in one statement.

For a page of any resource::

    COPY sync_page (p) FROM STDIN                   -- the payloads, one JSON text per line
    SELECT pg_advisory_xact_lock(<table, account>)  -- the account's writers of the table in turn
    WITH page AS (SELECT <column expressions over p> FROM sync_page),
         old AS (<the stored versions of the page's rows>),     -- where the upkeep needs them
         merged AS (INSERT INTO <table> (...) SELECT * FROM page
                    ON CONFLICT (<key>) DO UPDATE SET ...
                    WHERE (<table>.cols, payload) IS DISTINCT FROM (excluded.cols, payload)
                    RETURNING ...)
         [, the rollups' and events' CTEs] [, the caller's bookkeeping CTEs]
    SELECT inserted, updated, ...
    [SELECT ord_<table>_renumber(...)]              -- where new rows disturbed the ordinals

so a row that did not change is not rewritten (no new tuple, no index churn), and the
statement reports how many rows it inserted and updated; the rest were unchanged.

The write is the table's one definition (``app.store.mapping.SyncedTable.write_sql``,
shared with the store's write-back, with its upkeep: ``app/store/upkeep.py``); the typed
columns are computed by PostgreSQL from the payload. The
rows arrive as raw JSON items (``msgspec.Raw``, see ``Resource.decode_page``) and go to the
server as they came, in one COPY write: the worker neither decodes nor encodes a row.
The caller runs ``write_page`` inside the transaction that also stores the cursor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from psycopg import AsyncConnection

from app.store.mapping import write
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

    Rows are either raw JSON items as the upstream sent them (``msgspec.Raw``, see
    ``Resource.decode_page``: no decoding, no re-encoding) or decoded values (encoded once
    here). JSON never holds a raw newline or tab inside a string, so the only COPY escape
    needed is doubling backslashes, done once over the whole buffer. Raw items may hold
    whitespace between their tokens (a pretty-printing upstream): those are compacted first.
    """
    if not rows:
        return b""
    if isinstance(rows[0], msgspec.Raw):
        text = b"\n".join(rows)
        if text.count(b"\n") != len(rows) - 1 or b"\r" in text or b"\t" in text:
            text = b"\n".join(_compact(row) for row in rows)
    else:
        text = b"\n".join(map(_encode, rows))
    return text.replace(b"\\", b"\\\\") + b"\n"


def _compact(row: Any) -> bytes:
    if isinstance(row, msgspec.Raw):
        return msgspec.json.format(bytes(row), indent=-1)
    return _encode(row)


def merge_sql(resource: Resource, *, more_ctes: str = "", more_columns: str = "") -> str:
    """The merge statement of ``resource`` (parameters: account_id, run_id, constants):
    the table's write (``SyncedTable.write_sql``) of the staged page.

    It answers one row: the inserted and updated counts, then ``more_columns``.
    ``more_ctes`` (each starting with a comma) run in the same statement and may read
    ``counts`` (inserted, updated): the engine adds its bookkeeping there, so a page costs
    one statement after its COPY and the write's lock."""
    return resource.table.write_sql("sync_page", run_id=True, more_ctes=more_ctes, more_columns=more_columns)


# The transaction commits asynchronously (``synchronous_commit = off``, transaction-local,
# set with the write's lock): a page lost in a database crash is lost together with the
# cursor that committed with it, and is fetched again; the sync never needs the commit's
# flush wait.
_ASYNC_COMMIT = ", set_config('synchronous_commit', 'off', true)"


class PageWriter:
    """Writes pages of one resource; holds its statement text."""

    def __init__(self, resource: Resource, *, more_ctes: str = "", more_columns: str = "") -> None:
        self.resource = resource
        self.sql = merge_sql(resource, more_ctes=more_ctes, more_columns=more_columns)

    async def prepare(self, conn: AsyncConnection) -> None:
        await conn.execute(_STAGING_DDL)

    async def write_page(
        self,
        conn: AsyncConnection,
        rows: Sequence[Any],
        *,
        account_id: int,
        run_id: int | None,
        constants: Mapping[str, Any],
        params: Mapping[str, Any] | None = None,
    ) -> tuple[WriteCounts, tuple]:
        """Stage and merge one page in one COPY and one statement; ``params`` feed
        ``more_ctes``. Returns the counts and the ``more_columns`` values. The statement
        runs even for an empty page (``more_ctes`` do the page's bookkeeping). Must run
        inside a transaction of its own: the staging table empties at commit."""
        async with conn.cursor() as cur:
            if rows:
                async with cur.copy(_COPY) as copy:
                    await copy.write(copy_text(rows))
            inserted, updated, more = await write(
                cur, self.resource.table, self.sql,
                {**(params or {}), **constants, "account_id": account_id, "run_id": run_id},
                more_locked=_ASYNC_COMMIT,
            )
        # Staged rows neither inserted nor updated (or duplicates of another row of the same
        # page) were left as they were.
        return WriteCounts(inserted, updated, len(rows) - inserted - updated), tuple(more)
