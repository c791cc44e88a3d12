"""The ordinal renumbering reads by index only: no nested loop, no sequential scan.

``ord_{table}_renumber`` (migration 0010) joins the rows of the disturbed range against a
numbered copy of the same range. On a table whose statistics are stale (rows just written,
not analyzed yet) the planner may pick a nested loop that scans the range again for every
row of it: a backfill batch of 500 rows read 255,000 tuples, and a first batch of 30,000
rows ran for minutes (PostgreSQL 16). With nested loops and sequential scans off inside the
function, the join is a hash join of two index range scans: its work is the range's rows,
whatever the statistics say. The settings hold only while the function runs.

Revision ID: 0012_ord_renumber_plan
Revises: 0011_posts_counters
Create Date: 2026-11-23 14:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0012_ord_renumber_plan"
down_revision: str | None = "0011_posts_counters"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The tables of migration 0010 and the type of their ``id``.
_TABLES = {"chargebacks": "bigint", "payout_requests": "text"}


def _signature(table: str) -> str:
    id_type = _TABLES[table]
    return f"ord_{table}_renumber(bigint, timestamptz, {id_type}, timestamptz, {id_type})"


def upgrade() -> None:
    for table in _TABLES:
        op.execute(f"ALTER FUNCTION {_signature(table)} SET enable_nestloop = off")
        op.execute(f"ALTER FUNCTION {_signature(table)} SET enable_seqscan = off")


def downgrade() -> None:
    for table in _TABLES:
        op.execute(f"ALTER FUNCTION {_signature(table)} RESET enable_nestloop")
        op.execute(f"ALTER FUNCTION {_signature(table)} RESET enable_seqscan")
