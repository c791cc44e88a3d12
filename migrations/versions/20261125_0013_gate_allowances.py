"""The gate without a statement per request: change notifications, full ledger pages.

- ``NOTIFY relay_gate`` from statement-level triggers on ``api_keys``, ``accounts`` (its
  owner and credential) and ``role_permissions``: each API process keeps the keys and
  accounts it has seen and forgets them when one of these tables changes
  (``app.gate.listener``). A notification is sent when the changing transaction commits,
  once per transaction whatever the number of statements (PostgreSQL folds equal ones).
- ``usage_ledger`` back to ``fillfactor = 100``: rows are now written once, with their
  final status, after the response (``app.gate.ledger``); the half-empty pages of
  migration 0005 made room for a status UPDATE that no longer happens.
- ``organizations.last_charge_debited`` is dropped: nothing has read it since the gate
  statement computes each request's debit itself.

Revision ID: 0013_gate_allowances
Revises: 0012_ord_renumber_plan
Create Date: 2026-11-25 06:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_gate_allowances"
down_revision: str | None = "0012_ord_renumber_plan"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: table -> the events that change what a gate holds of it
_WATCHED = {
    "api_keys": "INSERT OR UPDATE OR DELETE OR TRUNCATE",
    "accounts": "INSERT OR UPDATE OF organization_id, upstream_token OR DELETE OR TRUNCATE",
    "role_permissions": "INSERT OR UPDATE OR DELETE OR TRUNCATE",
}


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION relay_gate_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('relay_gate', TG_TABLE_NAME);
            RETURN NULL;
        END
        $$
        """
    )
    for table, events in _WATCHED.items():
        op.execute(
            f"CREATE TRIGGER {table}_gate_changed AFTER {events} ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION relay_gate_changed()"
        )
    op.execute("ALTER TABLE usage_ledger SET (fillfactor = 100)")
    op.drop_column("organizations", "last_charge_debited")


def downgrade() -> None:
    op.add_column(
        "organizations",
        sa.Column("last_charge_debited", sa.Boolean(), server_default=sa.text("false"), nullable=False),
    )
    op.execute("ALTER TABLE usage_ledger SET (fillfactor = 50)")
    for table in _WATCHED:
        op.execute(f"DROP TRIGGER {table}_gate_changed ON {table}")
    op.execute("DROP FUNCTION relay_gate_changed()")
