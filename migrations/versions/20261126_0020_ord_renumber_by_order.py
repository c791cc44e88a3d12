"""The ordinal renumbering reads the disturbed range whatever the statistics say.

Migration 0012 turned nested loops and sequential scans off inside
``ord_{table}_renumber``; the choice between the table's indexes was still the planner's.
When the statistics predate an account (a second account's backfill on a young deployment,
an account whose rows arrived after the last ANALYZE), every index on ``account_id`` looks
like it returns one row, and the planner may read the neighbours and both sides of the
renumbering join through ``(account_id, id)`` or ``(account_id, ord)`` with a filter:
every statement then reads the account's rows twice (a 500-row backfill batch read 61,000
rows of a 30,000-row account; CI caught it).

Each query now has one plan that needs no sort, so sorts are off: the neighbours and the
numbered range come from ``(account_id, created_at, id)`` in its order, the ordinal bounds
from ``(account_id, ord)`` in its order, and the update reaches each numbered row by its
``ctid`` (a TID scan per row: hash and merge joins are off). Statistics can no longer pick
another index: the work is the disturbed range's rows.

Settings of a function hold for the triggers its statements fire. The renumbering's update
changes ``ord`` only, so the AFTER UPDATE triggers it fires (the ordinals' own, the payout
requests' events) have nothing to do; a column list would skip them, but PostgreSQL allows
none beside transition tables. The function sets ``relay.renumbering`` instead, and those
triggers return at once when it is on (planned with sorts and hash joins off, the events'
join of 30,000 old and new rows ran for 38 s).

Revision ID: 0020_ord_renumber_by_order
Revises: 0019_account_states
Create Date: 2026-11-26 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0020_ord_renumber_by_order"
down_revision: str | None = "0019_account_states"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The tables of migration 0010 and the type of their ``id``.
_TABLES = {"chargebacks": "bigint", "payout_requests": "text"}

_LOCK = "pg_advisory_xact_lock(hashtext('relay.ord.{table}'), hashint8(acc))"

# The rows of the account from (from_at, from_id) up, or down to (to_at, to_id), numbered
# from a kept ordinal; only rows whose ordinal changes are updated.
_RANGE_UPDATE = """
        UPDATE {table} t SET ord = r.n
        FROM (SELECT ctid AS tid, ord, {start} {sign} row_number() OVER (ORDER BY created_at {dir}, id {dir}) AS n
              FROM {table} WHERE account_id = acc{range}
              ORDER BY created_at {dir}, id {dir}) r
        WHERE t.ctid = r.tid AND r.ord IS DISTINCT FROM r.n;"""

_RENUMBER = """
CREATE OR REPLACE FUNCTION ord_{table}_renumber(acc bigint, p_at timestamptz, p_id {id_type},
                                                q_at timestamptz, q_id {id_type})
RETURNS bigint LANGUAGE plpgsql
-- Plans for these bounds, not generic ones; every query below reads an index in its order.
SET plan_cache_mode = force_custom_plan
SET enable_sort = off SET enable_seqscan = off SET enable_bitmapscan = off
SET enable_hashjoin = off SET enable_mergejoin = off SET enable_material = off
SET enable_nestloop = on SET relay.renumbering = on AS $$
DECLARE
    below_found boolean;
    above_found boolean;
    below bigint;  -- ordinal of the newest row under the disturbed range
    above bigint;  -- ordinal of the oldest row over it
    lo bigint;
    hi bigint;
    changed bigint;
BEGIN
    PERFORM {lock};
    SELECT ord INTO below FROM {table}
    WHERE account_id = acc AND (created_at, id) < (p_at, p_id)
    ORDER BY created_at DESC, id DESC LIMIT 1;
    below_found := FOUND;
    SELECT ord INTO above FROM {table}
    WHERE account_id = acc AND (created_at, id) > (q_at, q_id)
    ORDER BY created_at, id LIMIT 1;
    above_found := FOUND;
    SELECT ord INTO lo FROM {table} WHERE account_id = acc AND ord IS NOT NULL ORDER BY ord LIMIT 1;
    SELECT ord INTO hi FROM {table} WHERE account_id = acc AND ord IS NOT NULL ORDER BY ord DESC LIMIT 1;

    IF (below_found AND below IS NULL) OR (above_found AND above IS NULL)
       OR NOT (below_found OR above_found) THEN
        -- Nothing numbered to keep (or a neighbour without an ordinal): the whole account.{whole}
    ELSIF below_found AND (NOT above_found OR hi - below <= above - lo) THEN
        -- Keep the rows under the range, number the rest upwards.{upwards}
    ELSE
        -- Keep the rows over the range, number the rest downwards.{downwards}
    END IF;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$$"""


def _renumber(table: str) -> str:
    update = _RANGE_UPDATE.format
    return _RENUMBER.format(
        table=table, id_type=_TABLES[table], lock=_LOCK.format(table=table),
        whole=update(table=table, start="coalesce(lo, 1) - 1", sign="+", dir="", range=""),
        upwards=update(table=table, start="below", sign="+", dir="",
                       range=" AND (created_at, id) >= (p_at, p_id)"),
        downwards=update(table=table, start="above", sign="-", dir="DESC",
                         range=" AND (created_at, id) <= (q_at, q_id)"),
    )


def _previous_definition(table: str) -> str:
    """Migration 0010's function (with 0012's settings re-applied by the caller)."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(op.get_context().config)
    module = script.get_revision("0010_snapshot_ordinals").module
    return next(create for signature, create in module._functions(table) if "_renumber(" in signature)


#: AFTER UPDATE trigger functions the renumbering's own update fires.
_UPDATE_TRIGGERS = [*(f"ord_{table}_update" for table in _TABLES), "events_payout_requests_updated"]
_GUARD = "\n    IF current_setting('relay.renumbering', true) = 'on' THEN RETURN NULL; END IF;"


def _definition(function: str) -> str:
    return op.get_bind().exec_driver_sql(f"SELECT pg_get_functiondef('{function}'::regproc)").scalar_one()


def _guarded(definition: str) -> str:
    """The function with the guard as its first statement."""
    head, body = definition.split("\nBEGIN", 1)
    return f"{head}\nBEGIN{_GUARD}{body}"


def upgrade() -> None:
    for table in _TABLES:
        op.execute(_renumber(table))
    for function in _UPDATE_TRIGGERS:
        op.execute(_guarded(_definition(function)))


def downgrade() -> None:
    for function in _UPDATE_TRIGGERS:
        op.execute(_definition(function).replace(_GUARD, "", 1))
    for table, id_type in _TABLES.items():
        signature = f"ord_{table}_renumber(bigint, timestamptz, {id_type}, timestamptz, {id_type})"
        op.execute(f"DROP FUNCTION {signature}")
        op.execute(_previous_definition(table))
        op.execute(f"ALTER FUNCTION {signature} SET enable_nestloop = off")
        op.execute(f"ALTER FUNCTION {signature} SET enable_seqscan = off")
