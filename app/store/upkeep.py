"""What a write of synced rows keeps up to date, inside the statement that writes them.

Three things follow a synced table's rows: its rollups (``earnings_daily`` over earnings,
``posts_counters`` over posts), its change events (the outbox, ``events``) and, for the
offset-paged tables, the dense per-account ordinals (``ord``). Statement triggers kept them
until migration 0022; Citus runs no statement trigger on a distributed table
(docs/scaling.md, "What the survey found", items 1, 10 and 11), so the writers keep them,
each from its declaration (``app/db/declaration.py``):

- the write statement (``app.store.mapping.SyncedTable.write_sql``) reads the stored
  versions of the page's rows first (``old``), upserts (``merged``: the rows it inserted or
  changed, with ``inserted``), and then, as further CTEs of the same statement, adds each
  rollup's deltas (a new or changed row adds its sums to its group, a changed row takes its
  old ones away) and inserts the events, exactly as the triggers did;
- ordinals: the statement answers the disturbed key range (new rows, and rows whose time
  moved, at their old and new place) and the writer then calls the table's renumbering
  function (migrations 0010 and 0020) in the same transaction.

``old`` is exact because the writers of one (table, account) serialize on a transaction
advisory lock taken before the statement (``SyncedTable.lock_sql``), so no other writer's
change can fall between the statement's snapshot and its upsert. A rolled-back page takes
its rollup deltas, events and ordinals with it, as before. Only the writers keep these: a
statement that changes synced rows by hand does not (docs/data.md, "Changing synced rows
by hand").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import Table

from app.db.declaration import Rollup, declaration, has_ordinals, key_of, rollups_of
from app.db.metadata import metadata

# A write is one account's rows, so what an event needs from the account's bookkeeping is
# one value per statement (a subquery, not a join per row; Citus plans each on its own):
# the organization, the coverage's start, the writing run's kind (none for the live
# write-back), and whether the (account, resource) has had a successful incremental run
# (its first sync's rows are history, not events).
_ORGANIZATION = "(SELECT organization_id FROM accounts WHERE id = %(account_id)s::bigint)"
_SYNCED_ONCE = """EXISTS (SELECT 1 FROM sync_runs WHERE account_id = %(account_id)s::bigint
              AND resource = '{table}' AND kind = 'incremental' AND status = 'succeeded')"""

_CREATED = """
, {table}_created AS (
    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT '{table}.created', {organization}, n.account_id, n.payload
    FROM merged n
    WHERE n.inserted
      AND n.{time} >= (SELECT coverage_start FROM sync_state
                       WHERE account_id = %(account_id)s::bigint AND resource = '{table}')
      AND (SELECT kind FROM sync_runs WHERE account_id = %(account_id)s::bigint AND id = %(run_id)s::bigint)
          IS DISTINCT FROM 'backfill'
      AND {synced_once}
    ORDER BY n.{time}, n.id
)"""

_UPDATED = """
, {table}_updated AS (
    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT '{table}.updated', {organization}, n.account_id, n.payload
    FROM merged n
    JOIN old o USING ({key})
    WHERE ({old}) IS DISTINCT FROM ({new})
      AND {synced_once}
    ORDER BY n.{time}, n.id
)"""

# Sorted, so two writers of different tables touching the same groups lock them in one
# order; groups whose deltas are all zero (a change no sum sees) are not written.
_ROLLUP = """
, {name}_rollup AS (
    INSERT INTO {name} AS d ({columns})
    SELECT {group}, {summed}
    FROM (SELECT {added} FROM merged r
          UNION ALL
          SELECT {removed} FROM old r JOIN merged USING ({key})) AS c
    GROUP BY {group}
    HAVING ({summed}) IS DISTINCT FROM ({zeros})
    ORDER BY {group}
    ON CONFLICT ({group}) DO UPDATE SET {applied}
)"""

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

#: The statement's answer columns and FROM items for the disturbed range (see _MOVED).
ORDINAL_COLUMNS = ", lo.created_at, lo.id, hi.created_at, hi.id"
ORDINAL_FROM = " LEFT JOIN lo ON true LEFT JOIN hi ON true"

_COLUMN = re.compile(r"\b[ron]\.([a-z_]+)\b")


@dataclass(frozen=True, slots=True)
class Upkeep:
    """What writing ``table`` keeps: CTEs over ``merged`` and ``old``, and the columns of
    ``old`` they read (none: the statement needs no ``old``)."""

    ctes: str
    old_columns: tuple[str, ...]
    ordinals: bool


def rollup_cte(name: str, rollup: Rollup, key: tuple[str, ...]) -> str:
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
        key=", ".join(key),
        applied=", ".join(f"{s} = d.{s} + excluded.{s}" for s in sums),
    )


def event_ctes(table: Table, key: tuple[str, ...]) -> str:
    synced = declaration(table)
    if synced.events is None:
        return ""
    fields = dict(table=table.name, time=synced.time_column, organization=_ORGANIZATION,
                  synced_once=_SYNCED_ONCE.format(table=table.name))
    ctes = _CREATED.format(**fields)
    compared = synced.events.updated_fields
    if compared:
        ctes += _UPDATED.format(**fields, key=", ".join(key),
                                old=", ".join(f"o.{c}" for c in compared),
                                new=", ".join(f"n.{c}" for c in compared))
    return ctes


def upkeep_of(table: Table) -> Upkeep:
    key = key_of(table)
    ordinals = has_ordinals(table)
    ctes = "".join(rollup_cte(name, rollup, key) for name, rollup in rollups_of(metadata, table.name))
    ctes += event_ctes(table, key)
    if ordinals:
        ctes += _MOVED.format(key=", ".join(key))
    # ``old`` is read by a CTE only where one names ``o.<column>`` or ``r.<column>`` of it.
    reads_old = bool(re.search(r"\bold [or]\b", ctes))
    named = {c for c in _COLUMN.findall(ctes) if c in table.c}
    old_columns = tuple(c.name for c in table.columns if c.name in named | set(key)) if reads_old else ()
    # ``old`` reads the stored rows by the page's ids (SyncedTable.write_sql).
    assert not old_columns or key == ("account_id", "id"), f"{table.name}: upkeep needs the key (account_id, id)"
    return Upkeep(ctes, old_columns, ordinals)
