"""Analysts per organization: row-level security on the per-account tables.

- ``analyst_roles``: the roles ``relay db grant-readonly`` made, and the organization each
  reads (NULL: every organization, the role of before this migration);
- ``analyst_sees_all(role)`` and ``analyst_account_ids(role)``: what the policies ask. They
  are SECURITY DEFINER because analysts may not read ``accounts`` (upstream credentials)
  nor ``analyst_roles``; a session may ask only about a role it can become, so an analyst
  cannot list another organization's accounts by naming its role. A role counts with every
  registered role whose rights it holds (``USAGE``): an analyst's own login role that was
  granted an organization's NOLOGIN role reads that organization;
- on each per-account table (``app/db/tenancy.py``; the synced tables, the rollups,
  ``sync_state``): row-level security and one SELECT policy for every role. The owner (the
  API, the workers, migrations) and superusers bypass it, so no store query changes;
- the analyst views become ``security_invoker``: they read the tables with the querying
  role's rights, so its policy applies to them (a plain view reads with its owner's rights,
  which bypass the policies);
- ``sync_coverage``: one row per account and resource, what the store covers;
- roles already granted SELECT on the synced tables (made by ``grant-readonly`` before
  this migration) are registered for every organization: they keep reading what they read.

A later per-account table runs ``tenancy.row_security_statements`` in its own migration
(tests/db/test_analyst_roles.py checks every declared table has the policy). The policy's
form and the functions' definitions are frozen here: migration 0023 replaced them (the
subqueries below are what Citus refuses), and its downgrade puts these back.

Revision ID: 0015_analyst_row_security
Revises: 0014_ledger_without_fks
Create Date: 2026-11-26 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.db.tenancy import POLICY, drop_row_security_statements

revision: str = "0015_analyst_row_security"
down_revision: str | None = "0014_ledger_without_fks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen here (a later table is added by its own migration).
_TABLES = (
    "earnings", "chargebacks", "payout_requests", "posts", "tracking_links",
    "tracking_link_daily_stats", "earnings_daily", "posts_counters", "sync_state",
)
_VIEWS = ("earnings_net_per_day", "chargeback_rate_per_month", "post_performance")

# The registered roles whose rights ``who`` holds, if the session may become ``who``.
_HELD_ROLES = """
    SELECT r.organization_id
    FROM public.analyst_roles r JOIN pg_catalog.pg_roles p ON p.rolname = r.role_name
    WHERE pg_catalog.pg_has_role(session_user, who, 'MEMBER')
      AND pg_catalog.pg_has_role(who, p.oid, 'USAGE')
"""

_FUNCTIONS = {
    "analyst_sees_all(who name) RETURNS boolean": f"""
        SELECT EXISTS (SELECT 1 FROM ({_HELD_ROLES}) held WHERE organization_id IS NULL)
    """,
    "analyst_account_ids(who name) RETURNS bigint[]": f"""
        SELECT coalesce(array_agg(a.id ORDER BY a.id), '{{}}')
        FROM public.accounts a
        WHERE a.organization_id IN ({_HELD_ROLES})
    """,
}

# The functions as this revision made them (``_FUNCTION`` per signature and body).
_FUNCTION = (
    "CREATE OR REPLACE FUNCTION public.{signature} LANGUAGE sql STABLE SECURITY DEFINER "
    "SET search_path = pg_catalog, pg_temp AS $${body}$$"
)

# The policy as this revision wrote it: both functions in scalar subqueries, run once per
# query as InitPlans. The cast makes ANY read an array (without it, ANY (SELECT ...)
# compares with each row of a subquery).
USING = (
    "(SELECT public.analyst_sees_all(current_user)) "
    "OR account_id = ANY ((SELECT public.analyst_account_ids(current_user))::bigint[])"
)

_SYNC_COVERAGE = """
    SELECT account_id, resource, coverage_start, coverage_end, last_success_at,
           -- NULL before the first complete pass (greatest() alone would make it 0).
           CASE WHEN coverage_end IS NOT NULL THEN greatest(now() - coverage_end, interval '0') END AS lag,
           last_error, last_error_at
    FROM sync_state
"""

_REGISTER_EXISTING = """
    INSERT INTO analyst_roles (role_name, organization_id)
    SELECT DISTINCT r.rolname, NULL::bigint
    FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) g JOIN pg_roles r ON r.oid = g.grantee
    WHERE c.oid = 'public.earnings'::regclass AND g.privilege_type = 'SELECT'
      AND g.grantee <> c.relowner
    ON CONFLICT DO NOTHING
"""


def upgrade() -> None:
    op.create_table(
        "analyst_roles",
        sa.Column("role_name", sa.Text(), nullable=False),
        sa.Column("organization_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"], ["organizations.id"],
            name=op.f("fk_analyst_roles_organization_id_organizations"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("role_name", name=op.f("pk_analyst_roles")),
    )
    op.create_index(op.f("ix_analyst_roles_organization_id"), "analyst_roles", ["organization_id"])
    create_functions()
    for table in _TABLES:
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        op.execute(f"CREATE POLICY {POLICY} ON {table} FOR SELECT TO PUBLIC USING ({USING})")
    for view in _VIEWS:
        op.execute(f"ALTER VIEW {view} SET (security_invoker = on)")
    op.execute(f"CREATE VIEW sync_coverage WITH (security_invoker = on) AS {_SYNC_COVERAGE}")
    op.execute(_REGISTER_EXISTING)


def create_functions() -> None:
    """The policies' functions as this revision made them (also migration 0023's downgrade)."""
    for signature, body in _FUNCTIONS.items():
        op.execute(_FUNCTION.format(signature=signature, body=body))


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS sync_coverage")
    for view in _VIEWS:
        op.execute(f"ALTER VIEW {view} RESET (security_invoker)")
    for table in _TABLES:
        for statement in drop_row_security_statements(table):
            op.execute(statement)
    for signature in _FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS public.{signature.split(' RETURNS')[0]}")
    op.drop_index(op.f("ix_analyst_roles_organization_id"), table_name="analyst_roles")
    op.drop_table("analyst_roles")
