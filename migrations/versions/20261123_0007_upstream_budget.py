"""The upstream request budget: a token bucket per account shared by every worker process.

Revision ID: 0007_upstream_budget
Revises: 0006_events_webhooks
Create Date: 2026-11-23 06:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_upstream_budget"
down_revision: str | None = "0006_events_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "upstream_budget",
        sa.Column("account_id", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("tokens", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.text("clock_timestamp()")),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name=op.f("fk_upstream_budget_account_id_accounts")),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_upstream_budget")),
    )


def downgrade() -> None:
    op.drop_table("upstream_budget")
