"""The ledger without foreign keys: an append-only log written at the request rate.

Each ledger row checked two foreign keys (``organizations`` and ``api_keys``) as it was
copied in: two lookups and a ``FOR KEY SHARE`` lock of the referenced rows per row, which
made a row cost the server 12.7 µs instead of 4.9 µs (COPY of 300-row batches, measured
in docs/benchmarks.md) -- on a machine the API shares with PostgreSQL, that CPU comes off
the requests. The gate writes a row only for a key and an organization it has just read,
and nothing in Creator Relay deletes either (keys are revoked, not deleted), so the checks
guarded against nothing that happens. An operator who deletes an organization by hand now
keeps its ledger history; docs/api-decisions.md ("The ledger's foreign keys") says so.

Revision ID: 0014_ledger_without_fks
Revises: 0013_gate_allowances
Create Date: 2026-11-25 09:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014_ledger_without_fks"
down_revision: str | None = "0013_gate_allowances"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_constraint(op.f("fk_usage_ledger_api_key_id_api_keys"), "usage_ledger", type_="foreignkey")
    op.drop_constraint(op.f("fk_usage_ledger_organization_id_organizations"), "usage_ledger", type_="foreignkey")


def downgrade() -> None:
    # Rows whose organization or key is gone cannot take the constraints back: they are
    # dropped and their key cleared, as the constraints' ON DELETE rules would have done.
    op.execute("DELETE FROM usage_ledger l WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = l.organization_id)")
    op.execute("UPDATE usage_ledger l SET api_key_id = NULL WHERE api_key_id IS NOT NULL "
               "AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = l.api_key_id)")
    op.create_foreign_key(op.f("fk_usage_ledger_organization_id_organizations"), "usage_ledger", "organizations",
                          ["organization_id"], ["id"], ondelete="CASCADE")
    op.create_foreign_key(op.f("fk_usage_ledger_api_key_id_api_keys"), "usage_ledger", "api_keys",
                          ["api_key_id"], ["id"], ondelete="SET NULL")
