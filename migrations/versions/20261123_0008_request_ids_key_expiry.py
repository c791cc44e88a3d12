"""Request ids on the ledger and an expiry on API keys.

``usage_ledger.request_id``: the request's ``X-Request-ID`` (kept from the caller when sane,
else generated), the same id as on its log lines. ``api_keys.expires_at``: set by
``relay keys rotate`` on the old key, which keeps working until then; the gate statement
refuses a key past it like a revoked one. Both nullable: existing rows stay as they are.

Revision ID: 0008_request_ids_key_expiry
Revises: 0007_upstream_budget
Create Date: 2026-11-23 06:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_request_ids_key_expiry"
down_revision: str | None = "0007_upstream_budget"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("usage_ledger", sa.Column("request_id", sa.Text(), nullable=True))
    op.add_column("api_keys", sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("api_keys", "expires_at")
    op.drop_column("usage_ledger", "request_id")
