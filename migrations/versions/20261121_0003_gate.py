"""The gate: rate windows and the last charge on organizations, credit grants, ledger verdicts.

- organizations: the current minute and day windows and their counts (checked and counted by
  one UPDATE of the organization row), ``last_charge_debited``, and a non-negative balance;
- credit_grants: every ``relay credits add``;
- usage_ledger: ``debited`` (whether the credit came off the balance) and a nullable
  ``status`` (written after the response);
- usage_counters is dropped: the current windows live on the organization row and the
  ledger holds the history.

Revision ID: 0003_gate
Revises: 0002_synced_resources
Create Date: 2026-11-21 23:55:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_gate"
down_revision: str | None = "0002_synced_resources"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("organizations", sa.Column("minute_window", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "organizations",
        sa.Column("minute_used", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    op.add_column("organizations", sa.Column("day_window", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "organizations",
        sa.Column("day_used", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    op.add_column(
        "organizations",
        sa.Column(
            "last_charge_debited", sa.Boolean(), server_default=sa.text("false"), nullable=False
        ),
    )
    op.create_check_constraint(
        op.f("ck_organizations_balance_not_negative"), "organizations", "credit_balance >= 0"
    )
    op.create_table(
        "credit_grants",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("organization_id", sa.BigInteger(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_credit_grants_positive_amount")),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_credit_grants_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_credit_grants")),
    )
    op.create_index(
        op.f("ix_credit_grants_organization_id"), "credit_grants", ["organization_id"], unique=False
    )
    op.add_column(
        "usage_ledger",
        sa.Column("debited", sa.Boolean(), server_default=sa.text("true"), nullable=False),
    )
    op.alter_column("usage_ledger", "debited", server_default=None)
    op.alter_column("usage_ledger", "status", existing_type=sa.SmallInteger(), nullable=True)
    op.drop_table("usage_counters")


def downgrade() -> None:
    op.create_table(
        "usage_counters",
        sa.Column("organization_id", sa.BigInteger(), nullable=False),
        sa.Column("granularity", sa.Text(), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.CheckConstraint(
            "granularity IN ('minute', 'day')", name=op.f("ck_usage_counters_known_granularity")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_usage_counters_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "organization_id", "granularity", "window_start", name=op.f("pk_usage_counters")
        ),
    )
    op.execute("UPDATE usage_ledger SET status = 0 WHERE status IS NULL")
    op.alter_column("usage_ledger", "status", existing_type=sa.SmallInteger(), nullable=False)
    op.drop_column("usage_ledger", "debited")
    op.drop_index(op.f("ix_credit_grants_organization_id"), table_name="credit_grants")
    op.drop_table("credit_grants")
    op.drop_constraint(
        op.f("ck_organizations_balance_not_negative"), "organizations", type_="check"
    )
    for column in ("last_charge_debited", "day_used", "day_window", "minute_used", "minute_window"):
        op.drop_column("organizations", column)
