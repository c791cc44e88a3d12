"""Synced resources: earnings, chargebacks, payout requests, posts, tracking links and
their daily stats, plus the sync task (lease) table.

See app/db/synced.py and docs/data.md.

Revision ID: 0002_synced_resources
Revises: 0001_platform
Create Date: 2026-11-21 23:39:16.549207
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0002_synced_resources'
down_revision: str | None = '0001_platform'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('chargebacks',
    sa.Column('account_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('payment_type', sa.Text(), nullable=True),
    sa.Column('payment_id', sa.Text(), nullable=True),
    sa.Column('payment_created_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('amount', sa.Numeric(), nullable=True),
    sa.Column('net', sa.Numeric(), nullable=True),
    sa.Column('fee', sa.Numeric(), nullable=True),
    sa.Column('currency', sa.Text(), nullable=True),
    sa.Column('status', sa.Text(), nullable=True),
    sa.Column('user_id', sa.BigInteger(), nullable=True),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_synced_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('sync_run_id', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('account_id', 'id', name=op.f('pk_chargebacks'))
    )
    op.create_index(op.f('ix_chargebacks_account_id_created_at_id'), 'chargebacks', ['account_id', 'created_at', 'id'], unique=False)
    op.create_table('earnings',
    sa.Column('account_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('id', sa.Text(), nullable=False),
    sa.Column('type', sa.Text(), nullable=False),
    sa.Column('tips_source', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status', sa.Text(), nullable=True),
    sa.Column('amount', sa.Numeric(), nullable=False),
    sa.Column('net', sa.Numeric(), nullable=False),
    sa.Column('fee', sa.Numeric(), nullable=False),
    sa.Column('vat_amount', sa.Numeric(), nullable=True),
    sa.Column('tax_amount', sa.Numeric(), nullable=True),
    sa.Column('media_tax_amount', sa.Numeric(), nullable=True),
    sa.Column('currency', sa.Text(), nullable=True),
    sa.Column('payout_pending_days', sa.Integer(), nullable=True),
    sa.Column('user_id', sa.BigInteger(), nullable=True),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_synced_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('sync_run_id', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('account_id', 'id', name=op.f('pk_earnings'))
    )
    op.create_index(op.f('ix_earnings_account_id_created_at_id'), 'earnings', ['account_id', 'created_at', 'id'], unique=False)
    op.create_index(op.f('ix_earnings_account_id_type_tips_source_created_at'), 'earnings', ['account_id', 'type', 'tips_source', 'created_at'], unique=False)
    op.create_table('payout_requests',
    sa.Column('account_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('id', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('amount', sa.Numeric(), nullable=True),
    sa.Column('currency', sa.Text(), nullable=True),
    sa.Column('state', sa.Text(), nullable=True),
    sa.Column('reject_reason', sa.Text(), nullable=True),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_synced_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('sync_run_id', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('account_id', 'id', name=op.f('pk_payout_requests'))
    )
    op.create_index(op.f('ix_payout_requests_account_id_created_at_id'), 'payout_requests', ['account_id', 'created_at', 'id'], unique=False)
    op.create_table('posts',
    sa.Column('account_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('posted_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('posted_at_precise', sa.Numeric(), nullable=False),
    sa.Column('favorites_count', sa.Integer(), nullable=True),
    sa.Column('tips_amount', sa.Numeric(), nullable=True),
    sa.Column('is_pinned', sa.Boolean(), nullable=True),
    sa.Column('is_archived', sa.Boolean(), nullable=True),
    sa.Column('is_private_archived', sa.Boolean(), nullable=True),
    sa.Column('label_ids', postgresql.ARRAY(sa.BigInteger()), nullable=True),
    sa.Column('media_types', postgresql.ARRAY(sa.Text()), nullable=True),
    sa.Column('media_count', sa.Integer(), nullable=True),
    sa.Column('raw_text', sa.Text(), nullable=True),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_synced_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('sync_run_id', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('account_id', 'id', name=op.f('pk_posts'))
    )
    op.create_index(op.f('ix_posts_account_id_favorites_count_id'), 'posts', ['account_id', 'favorites_count', 'id'], unique=False)
    op.create_index(op.f('ix_posts_account_id_posted_at_precise_id'), 'posts', ['account_id', 'posted_at_precise', 'id'], unique=False)
    op.create_index(op.f('ix_posts_account_id_tips_amount_id'), 'posts', ['account_id', 'tips_amount', 'id'], unique=False)
    op.create_table('tracking_link_daily_stats',
    sa.Column('account_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('link_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('date', sa.Date(), nullable=False),
    sa.Column('clicks', sa.Integer(), nullable=True),
    sa.Column('subs', sa.Integer(), nullable=True),
    sa.Column('revenue', sa.Numeric(), nullable=True),
    sa.Column('spenders', sa.Integer(), nullable=True),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_synced_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('sync_run_id', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('account_id', 'link_id', 'date', name=op.f('pk_tracking_link_daily_stats'))
    )
    op.create_index(op.f('ix_tracking_link_daily_stats_account_id_date'), 'tracking_link_daily_stats', ['account_id', 'date'], unique=False)
    op.create_table('tracking_links',
    sa.Column('account_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('name', sa.Text(), nullable=True),
    sa.Column('campaign_code', sa.Text(), nullable=True),
    sa.Column('url', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_synced_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('sync_run_id', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('account_id', 'id', name=op.f('pk_tracking_links'))
    )
    op.create_index(op.f('ix_tracking_links_account_id_created_at'), 'tracking_links', ['account_id', 'created_at'], unique=False)
    op.create_table('sync_tasks',
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('resource', sa.Text(), nullable=False),
    sa.Column('due_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('next_incremental_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('backfill_since', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reconcile_since', sa.DateTime(timezone=True), nullable=True),
    sa.Column('lease_owner', sa.Text(), nullable=True),
    sa.Column('lease_token', sa.UUID(), nullable=True),
    sa.Column('lease_expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('failures', sa.Integer(), server_default=sa.text('0'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_sync_tasks_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('account_id', 'resource', name=op.f('pk_sync_tasks'))
    )
    op.create_index(op.f('ix_sync_tasks_due_at'), 'sync_tasks', ['due_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_sync_tasks_due_at'), table_name='sync_tasks')
    op.drop_table('sync_tasks')
    op.drop_index(op.f('ix_tracking_links_account_id_created_at'), table_name='tracking_links')
    op.drop_table('tracking_links')
    op.drop_index(op.f('ix_tracking_link_daily_stats_account_id_date'), table_name='tracking_link_daily_stats')
    op.drop_table('tracking_link_daily_stats')
    op.drop_index(op.f('ix_posts_account_id_tips_amount_id'), table_name='posts')
    op.drop_index(op.f('ix_posts_account_id_posted_at_precise_id'), table_name='posts')
    op.drop_index(op.f('ix_posts_account_id_favorites_count_id'), table_name='posts')
    op.drop_table('posts')
    op.drop_index(op.f('ix_payout_requests_account_id_created_at_id'), table_name='payout_requests')
    op.drop_table('payout_requests')
    op.drop_index(op.f('ix_earnings_account_id_type_tips_source_created_at'), table_name='earnings')
    op.drop_index(op.f('ix_earnings_account_id_created_at_id'), table_name='earnings')
    op.drop_table('earnings')
    op.drop_index(op.f('ix_chargebacks_account_id_created_at_id'), table_name='chargebacks')
    op.drop_table('chargebacks')
