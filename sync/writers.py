"""The one sync writer: a page of one resource, written by the tables' page write.

For a page of any resource, in the transaction that also stores the cursor
(``app.store.mapping.page_write``, shared with the store's write-back)::

    COPY sync_page_rows (account_id, batch, p) FROM STDIN   -- the payloads, one JSON text per line
    WITH fence AS (<the lease fence>)
    SELECT pg_advisory_xact_lock(<table, account>), ...    -- the account's writers of the table in turn
    INSERT INTO sync_page_old ...                          -- where the upkeep reads old versions
    INSERT INTO <table> (...) SELECT <column expressions over p> FROM sync_page_rows ...
        ON CONFLICT (<key>) DO UPDATE SET ...
        WHERE (<table>.cols, payload) IS DISTINCT FROM (excluded.cols, payload)
    INSERT INTO <rollup> ...                               -- each rollup's deltas
    WITH <staging emptied>, <events>, <moved range>, <cursor, coverage, run counters>
    SELECT <events>, ...
    [INSERT INTO events ...]                               -- where the page made events
    [SELECT ord_<table>_renumber(...)]                     -- where new rows disturbed the ordinals

so a row that did not change is not rewritten (no new tuple, no index churn), and the
upsert answers which rows it inserted and updated; the rest were unchanged. The typed
columns are computed by PostgreSQL from the payload; the rows arrive as raw JSON items
(``msgspec.Raw``, see ``Resource.decode_page``) and go to the server as they came, in one
COPY write: the worker neither decodes nor encodes a row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import AsyncConnection

from app.store.mapping import WritePlan, page_write, run_async
from sync.resources import Resource


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


# The transaction commits asynchronously (``synchronous_commit = off``, transaction-local,
# set with the write's lock): a page lost in a database crash is lost together with the
# cursor that committed with it, and is fetched again; the sync never needs the commit's
# flush wait.
_ASYNC_COMMIT = ", set_config('synchronous_commit', 'off', true)"


class PageWriter:
    """Writes pages of one resource; holds its statements. ``locked_ctes`` and
    ``more_locked``: a WITH clause and columns of the write's lock statement (the engine's
    lease fence); ``more_ctes`` and ``more_columns``: the closing statement's
    (``app.store.mapping.SyncedTable.closing_sql``; the engine's bookkeeping)."""

    def __init__(self, resource: Resource, *, locked_ctes: str = "", more_locked: str = "",
                 more_ctes: str = "", more_columns: str = "") -> None:
        self.resource = resource
        self.plan = WritePlan.of(resource.table, run_id=True, locked_ctes=locked_ctes,
                                 more_locked=_ASYNC_COMMIT + more_locked,
                                 more_ctes=more_ctes, more_columns=more_columns)

    async def write_page(
        self,
        conn: AsyncConnection,
        rows: Sequence[Any],
        *,
        account_id: int,
        run_id: int | None,
        constants: Mapping[str, Any],
        params: Mapping[str, Any] | None = None,
    ) -> tuple[WriteCounts, tuple, tuple]:
        """Write one page; ``params`` feed the further CTEs and columns. Returns the
        counts, the lock statement's further values and the closing statement's. The
        statements run even for an empty page (they do the page's bookkeeping). Runs in the
        caller's transaction."""
        async with conn.cursor() as cur:
            written = await run_async(cur, page_write(
                self.plan, rows, {**(params or {}), **constants, "account_id": account_id, "run_id": run_id}))
        # Staged rows neither inserted nor updated (or duplicates of another row of the same
        # page) were left as they were.
        counts = WriteCounts(written.inserted, written.updated, len(rows) - written.inserted - written.updated)
        return counts, written.locked[1:], written.more
