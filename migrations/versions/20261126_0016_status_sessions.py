"""Status page sessions: a browser signs in to ``GET /status`` with an admin key once and
then sends a cookie; ``status_sessions`` holds the digest of the cookie's random value, the
key it was opened with and its end. Nothing else about a session is kept anywhere.

Revision ID: 0016_status_sessions
Revises: 0015_analyst_row_security
Create Date: 2026-11-26 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_status_sessions"
down_revision: str | None = "0015_analyst_row_security"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "status_sessions",
        sa.Column("token_hash", sa.LargeBinary(), nullable=False),
        sa.Column("api_key_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["api_key_id"], ["api_keys.id"], name=op.f("fk_status_sessions_api_key_id_api_keys"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_status_sessions")),
    )


def downgrade() -> None:
    op.drop_table("status_sessions")
