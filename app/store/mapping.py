"""The synced tables' write, for both writers.

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
- ``upkeep``: what a write keeps up to date (rollups, events, ordinals:
  ``app/store/upkeep.py``).

A page is written by :func:`page_write`, the same statements for both writers, on one
PostgreSQL and on Citus: the rows are COPYed into ``sync_page_rows`` (one account's batch;
on Citus a table co-located with the synced tables, so the rows go straight to the
account's shard) and every statement that reads or writes them names the account, so
each is one shard's statement (docs/scaling.md, "What the survey found", item 7). Citus
plans a data-modifying ``INSERT`` in a CTE as a separate statement through the
coordinator, so the write is a few statements in one transaction instead of one statement
with CTEs.

Unchanged rows are not rewritten (``IS DISTINCT FROM``), so ``last_synced_at`` keeps
meaning "last changed". A changed row takes the time from the row it was given
(``excluded.last_synced_at``, its column default ``now()``): Citus refuses a function that is
not IMMUTABLE in ``DO UPDATE SET`` (docs/scaling.md, "What the survey found", item 5).
"""

from __future__ import annotations

import secrets
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from psycopg import AsyncConnection, AsyncCursor, Cursor

from app.db.declaration import key_of, payload_columns, synced_tables
from app.db.metadata import metadata
from app.db.rows import one
from app.store.staging import copy_text, staged_text
from app.store.upkeep import OF_PAGE, ORDINAL_COLUMNS, ORDINAL_FROM, STAGED, Upkeep, upkeep_of

_p = MappingProxyType
_ACCOUNT = "%(account_id)s::bigint"

_STAGE = "COPY sync_page_rows (account_id, batch, p) FROM STDIN"

# The events a page's closing statement answered, in its order, into the outbox (a table
# on the coordinator on Citus: its own statement).
_EVENTS = f"""
INSERT INTO events (type, organization_id, account_id, payload)
SELECT e.type, (SELECT organization_id FROM accounts WHERE id = {_ACCOUNT}), {_ACCOUNT}, e.payload
FROM ROWS FROM (jsonb_to_recordset(%(events)s::jsonb) AS (type text, payload jsonb)) WITH ORDINALITY AS e(type, payload, n)
ORDER BY e.n"""


@dataclass(frozen=True, slots=True)
class SyncedTable:
    """One synced table: its typed columns (SQL over ``p``), its conflict key, and what a
    write of it keeps up to date (``app/store/upkeep.py``)."""

    name: str
    columns: Mapping[str, str]
    key: tuple[str, ...] = ("account_id", "id")
    upkeep: Upkeep = Upkeep((), "", (), (), ordinals=False)

    @property
    def _page_ids(self) -> str:
        return f"ARRAY(SELECT {self.columns['id']} FROM {STAGED})"

    @property
    def old_rows(self) -> str:
        """The stored versions of the page's rows (``sync_page_old``), typed as the table
        (the account from the staged row: see :meth:`_written`)."""
        columns = ", ".join(f"r.{c}" for c in self.upkeep.old_columns if c != "account_id")
        return (f"(SELECT s.account_id, {columns} FROM sync_page_old s"
                f" CROSS JOIN LATERAL jsonb_populate_record(NULL::{self.name}, s.old) r WHERE {OF_PAGE})")

    def _written(self, *, run_id: bool) -> tuple[list[str], list[str]]:
        """The upsert's columns and their values over ``s``, the staged row (its account
        from there, not from the parameter: Citus sends an ``INSERT ... SELECT`` to the shard
        only where the distribution column comes from a co-located table)."""
        names = ["account_id", *self.columns, "payload"]
        values = ["s.account_id", *self.columns.values(), "p"]
        if run_id:
            names.append("sync_run_id")
            values.append("%(run_id)s::bigint")
        return names, values

    def page_rows(self, *, run_id: bool = False) -> str:
        """The staged page as rows of the table: one per key (of rows staged twice, the
        later; ``ctid`` orders the staged rows within the transaction, so every statement
        of the write picks the same)."""
        names, values = self._written(run_id=run_id)
        key = ", ".join(self.key)
        selected = ",\n           ".join(f"{v} AS {n}" for v, n in zip(values, names, strict=True))
        return f"""(SELECT DISTINCT ON ({key}) {", ".join(names)}
    FROM (SELECT {selected}, s.ctid AS staged_at
          FROM {STAGED}) AS staged
    ORDER BY {key}, staged_at DESC)"""

    def merged_rows(self, old: str | None = None) -> str:
        """The staged page's rows, which the upsert stored where they changed, each with
        ``inserted`` (no old version). Not read back from the table: where the statistics
        never saw the account, a look-up by ids may read the whole account (docs/data.md,
        "Ordinals"), and ``old`` did that once. Rows the upsert left alone equal their old
        versions, so what the upkeep derives from them is nothing. ``old``: the old
        versions' FROM item (:attr:`old_rows` if None)."""
        return (f"(SELECT page.*, o.id IS NULL AS inserted FROM {self.page_rows()} AS page"
                f" LEFT JOIN {old or self.old_rows} o USING (account_id, id))")

    @property
    def old_sql(self) -> str | None:
        """Keeps the stored versions of the page's rows (the columns the upkeep reads)
        before the upsert; None: the upkeep reads none."""
        if not self.upkeep.old_columns:
            return None
        # By the key's index: the page's ids, one account.
        fields = ", ".join(f"'{c}', o.{c}" for c in self.upkeep.old_columns)
        return f"""
INSERT INTO sync_page_old (account_id, batch, old)
SELECT o.account_id, %(batch)s::bigint, jsonb_build_object({fields}) FROM {self.name} o
WHERE o.account_id = {_ACCOUNT} AND o.id = ANY ({self._page_ids})"""

    def upsert_sql(self, *, run_id: bool = False) -> str:
        """The upsert of the staged page; ``run_id``: also store ``%(run_id)s`` as
        ``sync_run_id``. Rows equal to the stored ones are left alone. It answers one row
        per row it wrote: whether it inserted it."""
        names, _ = self._written(run_id=run_id)
        # A row is rewritten when what it holds changed, not for a new run id alone.
        assigned = [c for c in names if c not in self.key]
        compared = [c for c in assigned if c != "sync_run_id"]
        return f"""
INSERT INTO {self.name} AS t ({", ".join(names)})
SELECT * FROM {self.page_rows(run_id=run_id)} AS page
ON CONFLICT ({", ".join(self.key)}) DO UPDATE SET
    {", ".join(f"{c} = excluded.{c}" for c in assigned)}, last_synced_at = excluded.last_synced_at
WHERE ({", ".join(f"t.{c}" for c in compared)})
      IS DISTINCT FROM ({", ".join(f"excluded.{c}" for c in compared)})
RETURNING t.xmax = 0"""

    @property
    def rollup_sqls(self) -> tuple[str, ...]:
        return tuple(sql.format(merged=self.merged_rows(), old=self.old_rows) for sql in self.upkeep.rollups)

    def closing_sql(self, *, more_ctes: str = "", more_columns: str = "") -> str:
        """The page's last statement: empties its staging, runs the upkeep's CTEs and
        ``more_ctes`` (each starting with a comma; they may read the parameters
        ``inserted`` and ``updated``, the upsert's counts). It answers one row: the events as a JSON array (NULL: none), the
        disturbed ordinal range where the table keeps ordinals (four columns), then
        ``more_columns``."""
        up = self.upkeep
        ctes = [f"staged AS (DELETE FROM sync_page_rows s WHERE {OF_PAGE})"]
        if up.old_columns:
            ctes += [f"stashed AS (DELETE FROM sync_page_old s WHERE {OF_PAGE})",
                     f"old AS {self.old_rows}", f"merged AS {self.merged_rows('old')}"]
        events = "NULL::text"
        if up.events:
            union = " UNION ALL ".join(f"SELECT * FROM {name}" for name in up.events)
            events = ("(SELECT jsonb_agg(jsonb_build_object('type', e.type, 'payload', e.payload)"
                      f" ORDER BY e.rank, e.at, e.id) FROM ({union}) AS e)::text")
        ordinals = (ORDINAL_COLUMNS, ORDINAL_FROM) if up.ordinals else ("", "")
        return (f"WITH {', '.join(ctes)}{up.ctes}{more_ctes}\n"
                f"SELECT {events}{ordinals[0]}{more_columns} FROM (VALUES (1)) AS closing{ordinals[1]}")

    def lock_sql(self, *, ctes: str = "", more: str = "") -> str:
        """Serializes the writers of one (table, account) for the rest of the transaction
        (the upkeep's ``old`` is exact only then); ``ctes``: a WITH clause before it,
        ``more``: further columns (each starting with a comma)."""
        return (f"{ctes}SELECT pg_advisory_xact_lock(hashtext('relay.write.{self.name}'), "
                f"hashint8(%(account_id)s::bigint)){more}")

    @property
    def renumber_sql(self) -> str:
        """The ordinals' renumbering of one account's disturbed range (migration 0020)."""
        return f"SELECT ord_{self.name}_renumber(%s, %s, %s, %s, %s)"


@dataclass(frozen=True, slots=True)
class WritePlan:
    """The statements of one table's page write, built once per writer: ``locked_ctes``
    and ``more_locked`` (a WITH clause and columns of the lock's statement, e.g. the sync's
    lease fence), ``more_ctes`` and ``more_columns`` of the closing statement
    (:meth:`SyncedTable.closing_sql`)."""

    table: SyncedTable
    upsert: str
    closing: str
    lock: str

    @classmethod
    def of(cls, table: SyncedTable, *, run_id: bool = False, locked_ctes: str = "", more_locked: str = "",
           more_ctes: str = "", more_columns: str = "") -> WritePlan:
        return cls(table, table.upsert_sql(run_id=run_id),
                   table.closing_sql(more_ctes=more_ctes, more_columns=more_columns),
                   table.lock_sql(ctes=locked_ctes, more=more_locked))


@dataclass(frozen=True, slots=True)
class Written:
    """What a page write did: rows inserted and updated (the rest were unchanged or
    duplicates), and the values of the lock's and the closing statement's further columns."""

    inserted: int
    updated: int
    locked: tuple
    more: tuple


@dataclass(frozen=True, slots=True)
class Step:
    """One statement of a page write: ``copy`` (data for a COPY), ``answer`` None (no
    rows), "one" or "all"."""

    sql: str
    params: Mapping[str, Any] | Sequence[Any]
    copy: bytes | None = None
    answer: str | None = None


WriteSteps = Generator[Step, Any, Written]


def page_write(plan: WritePlan, rows: Sequence[Any], params: Mapping[str, Any]) -> WriteSteps:
    """The statements that write one page of one account (``params["account_id"]``), in
    the caller's transaction, each sent the previous one's answer: stage, lock, keep the
    old versions, upsert, rollups, close (upkeep and ``more_ctes``), events, renumbering."""
    table = plan.table
    # The page's rows among others staged at the same time (other tables, other writers).
    params = {**params, "batch": secrets.randbits(63)}
    if rows:
        yield Step(_STAGE, (), copy=staged_text(copy_text(rows), params["account_id"], params["batch"]))
    locked = yield Step(plan.lock, params, answer="one")
    if table.old_sql is not None:
        yield Step(table.old_sql, params)
    written = yield Step(plan.upsert, params, answer="all")
    inserted = sum(1 for (new,) in written if new)
    params = {**params, "inserted": inserted, "updated": len(written) - inserted}
    for rollup in table.rollup_sqls:
        yield Step(rollup, params)
    events, *more = yield Step(plan.closing, params, answer="one")
    if events is not None:
        yield Step(_EVENTS, {"account_id": params["account_id"], "events": events})
    if table.upkeep.ordinals:
        lo_at, lo_id, hi_at, hi_id, *more = more
        if lo_at is not None:
            yield Step(table.renumber_sql, (params["account_id"], lo_at, lo_id, hi_at, hi_id))
    return Written(inserted, params["updated"], tuple(locked[1:]), tuple(more))


async def run_async(cur: AsyncCursor, steps: WriteSteps) -> Written:
    """Run a page write's statements on an async cursor."""
    answer = None
    while True:
        try:
            step = steps.send(answer)
        except StopIteration as done:
            return done.value
        if step.copy is not None:
            async with cur.copy(step.sql) as copy:
                await copy.write(step.copy)
            answer = None
            continue
        await cur.execute(step.sql, step.params)
        answer = one(await cur.fetchone()) if step.answer == "one" else await cur.fetchall() if step.answer else None


def run_sync(cur: Cursor, steps: WriteSteps) -> Written:
    """Run a page write's statements on a blocking cursor (the tests' and tools' writer)."""
    answer = None
    while True:
        try:
            step = steps.send(answer)
        except StopIteration as done:
            return done.value
        if step.copy is not None:
            with cur.copy(step.sql) as copy:
                copy.write(step.copy)
            answer = None
            continue
        cur.execute(step.sql, step.params)
        answer = one(cur.fetchone()) if step.answer == "one" else cur.fetchall() if step.answer else None


TABLES: Mapping[str, SyncedTable] = _p({
    table.name: SyncedTable(table.name, _p(payload_columns(table)), key_of(table), upkeep_of(table))
    for table in synced_tables(metadata)
})

#: Every constant any expression names; unset ones are NULL.
CONSTANTS = ("type", "tips_source", "link_id")

#: The write-back's plan of each table (no run, no bookkeeping).
ITEM_PLANS: Mapping[str, WritePlan] = _p({name: WritePlan.of(table) for name, table in TABLES.items()})


def item_params(account_id: int, constants: Mapping[str, Any]) -> dict[str, Any]:
    return {name: None for name in CONSTANTS} | dict(constants) | {"account_id": account_id, "run_id": None}


async def write_items(
    conn: AsyncConnection, table: str, account_id: int, items: Sequence[Any], **constants: Any
) -> None:
    """Write one page of upstream items of one account, with its upkeep (in a transaction,
    or a savepoint of the caller's)."""
    if not items:
        return
    async with conn.transaction(), conn.cursor() as cur:
        await run_async(cur, page_write(ITEM_PLANS[table], items, item_params(account_id, constants)))
