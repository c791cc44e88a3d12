"""The page write's staging tables: ``sync_page_rows`` and ``sync_page_old`` (app/db/staging.py).

The sync wrote a page through a temporary table merged in one statement; on Citus a
temporary table lives on the coordinator, so every row went through it, and Citus plans
each data-modifying CTE of the statement as a statement of its own there. The page now
goes into a table of its account (on Citus: distributed, co-located with the synced
tables, by ``relay migrate``'s distribution step), and the write is a few statements, each
one shard's (app/store/mapping.py). Their replica identity is the whole row: a shard move
replicates them logically, and they have no key.

Revision ID: 0024_page_staging
Revises: 0023_analyst_scopes
Create Date: 2026-11-27 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0024_page_staging"
down_revision: str | None = "0023_analyst_scopes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = (("sync_page_rows", "p"), ("sync_page_old", "old"))


def upgrade() -> None:
    for table, payload in _TABLES:
        op.create_table(
            table,
            sa.Column("account_id", sa.BigInteger(), nullable=False),
            sa.Column("batch", sa.BigInteger(), nullable=False),
            sa.Column(payload, postgresql.JSONB(), nullable=False),
        )
        op.create_index(f"ix_{table}_account_id_batch", table, ["account_id", "batch"])
        op.execute(f"ALTER TABLE {table} REPLICA IDENTITY FULL")


def downgrade() -> None:
    for table, _ in _TABLES:
        op.drop_table(table)
