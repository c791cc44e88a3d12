"""``organizations.reserved_until`` and ``reserved``: until when allowances may still give
admissions back, and at most how many.

An API process admits most requests from an allowance the gate statement reserved for it
(migration 0013, ``app/gate/allowance.py``). A request that does not fit a window or the
balance while another process still holds part of an allowance could be admitted once that
part comes back: the statement defers it until ``reserved_until`` instead of refusing it,
so exactly min(requests, room) pass across processes (docs/api-decisions.md, "Allowances").
``reserved`` sums the allowances reserved until then: no more requests wait than could be
served.

Revision ID: 0025_gate_reservations
Revises: 0024_page_staging
Create Date: 2026-11-28 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025_gate_reservations"
down_revision: str | None = "0024_page_staging"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("organizations", sa.Column("reserved_until", sa.DateTime(timezone=True), nullable=True))
    op.add_column("organizations", sa.Column("reserved", sa.Integer(), server_default=sa.text("0"), nullable=False))


def downgrade() -> None:
    op.drop_column("organizations", "reserved")
    op.drop_column("organizations", "reserved_until")
