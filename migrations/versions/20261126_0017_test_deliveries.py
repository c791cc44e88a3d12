"""Test deliveries: ``relay webhooks test`` sends an endpoint a ``webhook.test`` event at once
and logs the attempt in ``webhook_deliveries`` like any other; that event is never stored, so
the attempt's ``event_id`` is NULL.

Revision ID: 0017_test_deliveries
Revises: 0016_status_sessions
Create Date: 2026-11-26 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_test_deliveries"
down_revision: str | None = "0016_status_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.alter_column("webhook_deliveries", "event_id", existing_type=sa.BigInteger(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM webhook_deliveries WHERE event_id IS NULL")
    op.alter_column("webhook_deliveries", "event_id", existing_type=sa.BigInteger(), nullable=False)
