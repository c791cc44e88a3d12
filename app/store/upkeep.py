"""What a write of synced rows keeps up to date, in the statements of the page's transaction.

Three things follow a synced table's rows: its rollups (``earnings_daily`` over earnings,
``posts_counters`` over posts), its change events (the outbox, ``events``) and, for the
offset-paged tables, the dense per-account ordinals (``ord``). Statement triggers kept them
until migration 0022; Citus runs no statement trigger on a distributed table
(docs/scaling.md, "What the survey found", items 1, 7, 10 and 11), so the writer keeps
them, each from its declaration (``app/db/declaration.py``), around the upsert
(``app/store/mapping.py``):

- before it, ``old``: the stored versions of the page's rows, kept in ``sync_page_old``
  (the columns the upkeep reads, as JSON; one account's rows, beside its shard on Citus);
- after it, ``merged``: the page's rows (as the upsert stored them where they changed),
  each with ``inserted`` (it had no old version). A rollup adds the sums of ``merged`` and
  takes those of ``old`` away, group by group (a row the upsert left alone adds and takes
  the same); an event is a row of ``merged`` that is new, or whose declared fields differ
  from its ``old`` version; the ordinals' disturbed range is the new rows and the rows
  whose time moved, at both places.

Each of these is a statement of one account on one table (on Citus: one shard's
statement, no row through the coordinator): each rollup one ``INSERT ... SELECT``, the
events and the ordinals' range CTEs of the page's closing statement, which answers the
events as JSON; the writer inserts them into ``events`` (on the coordinator) and renumbers
the ordinals (migrations 0010 and 0020) in the same transaction.

``old`` is exact because the writers of one (table, account) serialize on a transaction
advisory lock taken before it (``SyncedTable.lock_sql``), so no other writer's change can
fall between it and the upsert. A rolled-back page takes its rollup deltas, events and
ordinals with it. Only the writers keep these: a statement that changes synced rows by
hand does not (docs/data.md, "Changing synced rows by hand").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import Table

from app.db.declaration import Rollup, declaration, has_ordinals, key_of, rollups_of
from app.db.metadata import metadata

_ACCOUNT = "%(account_id)s::bigint"
#: A page's rows in ``sync_page_rows`` and ``sync_page_old`` (``s``): one account's, one batch.
OF_PAGE = f"s.account_id = {_ACCOUNT} AND s.batch = %(batch)s::bigint"
#: The page's staged rows (written by COPY).
STAGED = f"sync_page_rows s WHERE {OF_PAGE}"

# Whether the (account, resource) has had a successful incremental run: its first sync's
# rows are history, not events. A write is one account's rows, so it is one value per
# statement (a subquery, not a join per row).
_SYNCED_ONCE = f"""EXISTS (SELECT 1 FROM sync_runs WHERE account_id = {_ACCOUNT}
              AND resource = '{{table}}' AND kind = 'incremental' AND status = 'succeeded')"""

# Each event CTE answers (rank, type, payload, at, id); the closing statement answers them
# in that order as one JSON array.
_CREATED = f"""
, {{table}}_created AS (
    SELECT 0 AS rank, '{{table}}.created' AS type, n.payload, n.{{time}} AS at, n.id
    FROM merged n
    WHERE n.inserted
      AND n.{{time}} >= (SELECT coverage_start FROM sync_state
                       WHERE account_id = {_ACCOUNT} AND resource = '{{table}}')
      AND (SELECT kind FROM sync_runs WHERE account_id = {_ACCOUNT} AND id = %(run_id)s::bigint)
          IS DISTINCT FROM 'backfill'
      AND {{synced_once}}
)"""

_UPDATED = """
, {table}_updated AS (
    SELECT 1 AS rank, '{table}.updated' AS type, n.payload, n.{time} AS at, n.id
    FROM merged n
    JOIN old o USING ({key})
    WHERE ({old}) IS DISTINCT FROM ({new})
      AND {synced_once}
)"""

# Sorted, so two writers of different tables touching the same groups lock them in one
# order; groups whose deltas are all zero (unchanged rows, a change no sum sees) are not
# written.
_ROLLUP = """
INSERT INTO {name} AS d ({columns})
SELECT {group}, {summed}
FROM (SELECT {added} FROM {merged} AS r
      UNION ALL
      SELECT {removed} FROM {old} AS r) AS c
GROUP BY {group}
HAVING ({summed}) IS DISTINCT FROM ({zeros})
ORDER BY {group}
ON CONFLICT ({group}) DO UPDATE SET {applied}"""

# The keys whose place in the (created_at, id) order is new: inserted rows, and rows whose
# created_at changed, at their old and at their new place.
_MOVED = """
, moved AS (
    SELECT created_at, id FROM merged WHERE inserted
    UNION ALL
    SELECT x.created_at, x.id FROM merged n JOIN old o USING ({key}),
           LATERAL (VALUES (o.created_at, o.id), (n.created_at, n.id)) AS x(created_at, id)
    WHERE o.created_at IS DISTINCT FROM n.created_at
)
, lo AS (SELECT created_at, id FROM moved ORDER BY created_at, id LIMIT 1)
, hi AS (SELECT created_at, id FROM moved ORDER BY created_at DESC, id DESC LIMIT 1)"""

#: The closing statement's answer columns and FROM items for the disturbed range (_MOVED).
ORDINAL_COLUMNS = ", lo.created_at, lo.id, hi.created_at, hi.id"
ORDINAL_FROM = " LEFT JOIN lo ON true LEFT JOIN hi ON true"

_COLUMN = re.compile(r"\b[or]\.([a-z_]+)\b")


@dataclass(frozen=True, slots=True)
class Upkeep:
    """What writing a table keeps: its rollups' statements (over the FROM items
    ``{merged}`` and ``{old}``), the closing statement's CTEs over ``merged`` and ``old``
    (events, the ordinals' range), the event CTEs' names, and the columns of ``old`` they
    read (none: the write needs no ``old``)."""

    rollups: tuple[str, ...]
    ctes: str
    events: tuple[str, ...]
    old_columns: tuple[str, ...]
    ordinals: bool


def rollup_sql(name: str, rollup: Rollup) -> str:
    group = ", ".join(rollup.group)
    sums = list(rollup.sums)
    return _ROLLUP.format(
        name=name,
        columns=", ".join([*rollup.group, *sums]),
        group=group,
        summed=", ".join(f"sum({s})" for s in sums),
        zeros=", ".join("0" for _ in sums),
        added=", ".join(f"{e} AS {c}" for c, e in [*rollup.group.items(), *rollup.sums.items()]),
        removed=", ".join([*(f"{e} AS {c}" for c, e in rollup.group.items()),
                           *(f"-({e}) AS {c}" for c, e in rollup.sums.items())]),
        applied=", ".join(f"{s} = d.{s} + excluded.{s}" for s in sums),
        merged="{merged}", old="{old}",
    )


def event_ctes(table: Table, key: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    synced = declaration(table)
    if synced.events is None:
        return "", ()
    fields = dict(table=table.name, time=synced.time_column, synced_once=_SYNCED_ONCE.format(table=table.name))
    ctes, names = _CREATED.format(**fields), [f"{table.name}_created"]
    compared = synced.events.updated_fields
    if compared:
        ctes += _UPDATED.format(**fields, key=", ".join(key),
                                old=", ".join(f"o.{c}" for c in compared),
                                new=", ".join(f"n.{c}" for c in compared))
        names.append(f"{table.name}_updated")
    return ctes, tuple(names)


def upkeep_of(table: Table) -> Upkeep:
    key = key_of(table)
    ordinals = has_ordinals(table)
    rollups = tuple(rollup_sql(name, rollup) for name, rollup in rollups_of(metadata, table.name))
    ctes, events = event_ctes(table, key)
    if ordinals:
        ctes += _MOVED.format(key=", ".join(key))
    # The columns of ``old`` (``o``, or ``r`` in a rollup) that something reads, with the key.
    named = {c for text in (*rollups, ctes) for c in _COLUMN.findall(text) if c in table.c}
    old_columns = tuple(c.name for c in table.columns if c.name in named | set(key)) if rollups or ctes else ()
    # ``old`` and ``merged`` find the stored rows by the page's ids (app/store/mapping.py).
    assert not old_columns or key == ("account_id", "id"), f"{table.name}: upkeep needs the key (account_id, id)"
    return Upkeep(rollups, ctes, events, old_columns, ordinals)
