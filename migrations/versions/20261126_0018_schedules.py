"""Schedules: backfills, reconciles and exports the workers run on a cron, and their runs.

Revision ID: 0018_schedules
Revises: 0017_test_deliveries
Create Date: 2026-11-26 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0018_schedules"
down_revision: str | None = "0017_test_deliveries"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("organization_id", sa.BigInteger(), nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=True),
        sa.Column("resource", sa.Text(), nullable=True),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("cron", sa.Text(), nullable=False),
        sa.Column("timezone", sa.Text(), server_default=sa.text("'UTC'"), nullable=False),
        sa.Column("since", sa.Text(), nullable=True),
        sa.Column("export_format", sa.Text(), nullable=True),
        sa.Column("export_dir", sa.Text(), nullable=True),
        sa.Column("paused", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("next_run_at", _TZ, nullable=False),
        sa.Column("pending_due_at", _TZ, nullable=True),
        sa.Column("retry_at", _TZ, nullable=True),
        sa.Column("failures", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("lease_owner", sa.Text(), nullable=True),
        sa.Column("lease_expires_at", _TZ, nullable=True),
        sa.Column("created_at", _TZ, server_default=sa.text("now()"), nullable=False),
        sa.CheckConstraint("action IN ('backfill', 'reconcile', 'export')",
                           name=op.f("ck_schedules_known_action")),
        sa.CheckConstraint(
            "(action = 'export') = (export_format IS NOT NULL AND export_dir IS NOT NULL)",
            name=op.f("ck_schedules_export_target"),
        ),
        sa.CheckConstraint("export_format IS NULL OR export_format IN ('csv', 'parquet')",
                           name=op.f("ck_schedules_known_format")),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name=op.f("fk_schedules_account_id_accounts")),
        sa.ForeignKeyConstraint(["organization_id"], ["organizations.id"], ondelete="CASCADE",
                                name=op.f("fk_schedules_organization_id_organizations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_schedules")),
    )
    op.create_index(op.f("ix_schedules_organization_id"), "schedules", ["organization_id"])
    op.create_index(op.f("ix_schedules_next_run_at"), "schedules", ["next_run_at"],
                    postgresql_where=sa.text("NOT paused"))
    op.create_table(
        "schedule_runs",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("schedule_id", sa.BigInteger(), nullable=False),
        sa.Column("due_at", _TZ, nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("worker", sa.Text(), nullable=True),
        sa.Column("status", sa.Text(), server_default=sa.text("'running'"), nullable=False),
        sa.Column("started_at", _TZ, server_default=sa.text("now()"), nullable=False),
        sa.Column("finished_at", _TZ, nullable=True),
        sa.Column("rows_read", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("rows_changed", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("details", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.CheckConstraint("status IN ('running', 'succeeded', 'failed', 'abandoned')",
                           name=op.f("ck_schedule_runs_known_status")),
        sa.ForeignKeyConstraint(["schedule_id"], ["schedules.id"], ondelete="CASCADE",
                                name=op.f("fk_schedule_runs_schedule_id_schedules")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_schedule_runs")),
        sa.UniqueConstraint("schedule_id", "due_at", "attempt",
                            name=op.f("uq_schedule_runs_schedule_id_due_at_attempt")),
    )


def downgrade() -> None:
    op.drop_table("schedule_runs")
    op.drop_index(op.f("ix_schedules_next_run_at"), table_name="schedules",
                  postgresql_where=sa.text("NOT paused"))
    op.drop_index(op.f("ix_schedules_organization_id"), table_name="schedules")
    op.drop_table("schedules")
