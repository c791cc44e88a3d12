"""Analysts' row-level security that runs the same on one PostgreSQL and on a Citus cluster.

On Citus the per-account tables' policies run on the workers, against the shards, and
Citus refuses a policy with a subquery on a distributed table. Migration 0015's policies
had both: subqueries (InitPlans, so the functions ran once per query), and functions that
read ``accounts`` and ``analyst_roles``, which stay on the coordinator. Now:

- ``analyst_scopes (role_name, all_accounts, account_ids)``: each registered role's
  accounts, a copy of ``analyst_roles`` joined with ``accounts``. It is declared to be on
  every node (``tenancy.on_every_node``: a Citus reference table), so a worker reads it
  beside its shards;
- ``refresh_analyst_scopes()`` writes it, in the transaction of the change: ``relay db
  grant-readonly``'s and account connect's (``app/db/readonly.py``). It rewrites the table
  only when something changed, then rewrites the catalog rows of the two functions below,
  which discards every session's saved plans that folded them;
- ``analyst_sees_all(who)`` and ``analyst_account_ids(who)`` keep their signatures and
  their rules (0015) and read ``analyst_scopes``. On a worker that read is a Citus query
  inside a query on a shard, which Citus refuses unless allowed: reading a reference table
  from any node is what it is for, so they allow it for the read (without Citus, a setting
  nothing reads);
- ``current_analyst_sees_all()`` and ``current_analyst_account_ids()`` ask them for
  current_user. No argument and declared IMMUTABLE, so the planner runs them once while it
  plans and the policy becomes ``account_id = ANY ('{...}')``: no subquery, no call per row
  (a STABLE function in a policy runs once per row). The declaration is not what they are
  (they read a table): what stands in for it is the plan invalidation above;
- every policy ``analyst_accounts`` reads ``current_analyst_sees_all() OR account_id = ANY
  (current_analyst_account_ids())`` (``tenancy.row_security_statements``'s form).

Revision ID: 0023_analyst_scopes
Revises: 0022_upkeep_in_the_writers
Create Date: 2026-11-27 09:00:00
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from app.db.tenancy import POLICY

revision: str = "0023_analyst_scopes"
down_revision: str | None = "0022_upkeep_in_the_writers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The registered roles whose rights ``who`` holds, if the session may become ``who``
# (0015's rule, read from the copy).
_HELD = """
    SELECT s.all_accounts, s.account_ids
    FROM public.analyst_scopes s JOIN pg_catalog.pg_roles p ON p.rolname = s.role_name
    WHERE pg_catalog.pg_has_role(session_user, who, 'MEMBER')
      AND pg_catalog.pg_has_role(who, p.oid, 'USAGE')
"""

_READERS = {
    # signature: (what it returns, the query that answers)
    "analyst_sees_all(who name)": ("boolean", f"""
        SELECT EXISTS (SELECT 1 FROM ({_HELD}) held WHERE held.all_accounts)
    """),
    "analyst_account_ids(who name)": ("bigint[]", f"""
        SELECT coalesce(array_agg(DISTINCT id ORDER BY id), '{{}}')
        FROM ({_HELD}) held CROSS JOIN unnest(held.account_ids) id
    """),
}
# On a Citus worker, reading the reference table inside a query on a shard is a distributed
# query within one, which Citus refuses unless citus.allow_nested_distributed_execution is
# on. It is turned on for the read and back after, at run time: a function's SET clause
# with a setting PostgreSQL does not know (no Citus) needs a superuser to create.
_READER = """
CREATE OR REPLACE FUNCTION public.{signature} RETURNS {returns}
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    nested text := current_setting('citus.allow_nested_distributed_execution', true);
    answer {returns};
BEGIN
    PERFORM set_config('citus.allow_nested_distributed_execution', 'on', true);
    answer := ({query});
    PERFORM set_config('citus.allow_nested_distributed_execution', coalesce(nested, 'off'), true);
    RETURN answer;
END
$$
"""

_PER_QUERY = {
    "current_analyst_sees_all() RETURNS boolean": "public.analyst_sees_all(current_user)",
    "current_analyst_account_ids() RETURNS bigint[]": "public.analyst_account_ids(current_user)",
}
# A standard SQL body (RETURN): PostgreSQL records what it calls, so Citus, distributing a
# table whose policy calls one, takes the function it calls to the workers too. PARALLEL
# SAFE: folded while planning, they leave nothing for a parallel worker to run.
_ONCE = "CREATE FUNCTION public.{signature} LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1 RETURN {body}"

_REFRESH = """
CREATE FUNCTION public.refresh_analyst_scopes() RETURNS boolean
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    wanted public.analyst_scopes[];
BEGIN
    -- One at a time: each compares the whole table with what it should hold.
    PERFORM pg_advisory_xact_lock(hashtext('relay.analyst_scopes'));
    SELECT coalesce(array_agg(ROW(r.role_name, r.organization_id IS NULL, coalesce(a.ids, '{}'))
                              ::public.analyst_scopes ORDER BY r.role_name), '{}')
    INTO wanted
    FROM public.analyst_roles r
    LEFT JOIN LATERAL (SELECT array_agg(x.id ORDER BY x.id) AS ids FROM public.accounts x
                       WHERE x.organization_id = r.organization_id) a ON true;
    -- Its columns, not the whole row: on Citus that is the row of the shard, another type.
    IF wanted = (SELECT coalesce(array_agg(ROW(s.role_name, s.all_accounts, s.account_ids)::public.analyst_scopes
                                           ORDER BY s.role_name), '{}')
                 FROM public.analyst_scopes s) THEN
        RETURN false;
    END IF;
    DELETE FROM public.analyst_scopes;
    INSERT INTO public.analyst_scopes SELECT * FROM unnest(wanted);
    -- A new catalog row for each: the plans that folded them (prepared statements, PL/pgSQL)
    -- are planned again, with the new scopes.
    ALTER FUNCTION public.current_analyst_sees_all() COST 1;
    ALTER FUNCTION public.current_analyst_account_ids() COST 1;
    RETURN true;
END
$$
"""

USING = "public.current_analyst_sees_all() OR account_id = ANY (public.current_analyst_account_ids())"

_SECURED = "SELECT polrelid::regclass::text FROM pg_policy WHERE polname = :policy ORDER BY 1"


def upgrade() -> None:
    op.create_table(
        "analyst_scopes",
        sa.Column("role_name", sa.Text(), nullable=False),
        sa.Column("all_accounts", sa.Boolean(), nullable=False),
        sa.Column("account_ids", postgresql.ARRAY(sa.BigInteger()), nullable=False),
        sa.PrimaryKeyConstraint("role_name", name=op.f("pk_analyst_scopes")),
    )
    for signature, (returns, query) in _READERS.items():
        op.execute(_READER.format(signature=signature, returns=returns, query=query))
    for signature, body in _PER_QUERY.items():
        op.execute(_ONCE.format(signature=signature, body=body))
    op.execute(_REFRESH)
    _set_policies(USING)
    op.execute("SELECT public.refresh_analyst_scopes()")


def downgrade() -> None:
    previous = _revision_0015()
    _set_policies(previous.USING)
    previous.create_functions()
    op.execute("DROP FUNCTION public.refresh_analyst_scopes()")
    for signature in _PER_QUERY:
        op.execute(f"DROP FUNCTION public.{signature.split(' RETURNS')[0]}")
    op.drop_table("analyst_scopes")


def _set_policies(using: str) -> None:
    """The policy of every table that has it (0015's and any later per-account table's)."""
    for (table,) in op.get_bind().execute(sa.text(_SECURED), {"policy": POLICY}):
        op.execute(f"ALTER POLICY {POLICY} ON {table} USING ({using})")


def _revision_0015() -> ModuleType:
    """Migration 0015, whose policy and functions the downgrade puts back."""
    path = Path(__file__).with_name("20261126_0015_analyst_row_security.py")
    spec = importlib.util.spec_from_file_location("relay_migration_0015", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
