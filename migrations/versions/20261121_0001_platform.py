"""Platform tables: organizations, keys, roles and permissions, accounts, metering, sync bookkeeping.

Roles and permissions are seeded from a frozen copy of app.permissions as of this revision.

Revision ID: 0001_platform
Revises: 
Create Date: 2026-11-21 23:33:41.080115
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001_platform'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


PERMISSIONS = {
    "api_chats_list": "GET /v1/{account_id}/chats",
    "api_chats_list_chat_lists": "GET /v1/{account_id}/lists",
    "api_direct_messages_stats": "GET /v1/{account_id}/direct-messages",
    "api_posts_list": "GET /v1/{account_id}/posts",
    "api_earnings_list": "GET /v1/{account_id}/earnings",
    "api_earnings_read_overview": "GET /v1/{account_id}/earnings/overview",
    "api_earnings_read_chart": "GET /v1/{account_id}/earnings/chart",
    "api_reach_read_profile_visitors": "GET /v1/{account_id}/reach/profile-visitors",
    "api_reach_list_promotions": "GET /v1/{account_id}/reach/promotions",
    "api_campaigns_read_overview": "GET /v1/{account_id}/campaigns/overview",
    "api_campaigns_read_chart": "GET /v1/{account_id}/campaigns/chart",
    "api_tracking_links_read": "GET /v1/{account_id}/tracking-links/{link_id}/stats",
    "api_promotions_trials_list": "GET /v1/{account_id}/promotions-trials",
    "api_vault_list_processing": "GET /v1/{account_id}/vault/media/processing",
    "api_vault_list_lists": "GET /v1/{account_id}/vault/lists",
    "api_payouts_list_chargebacks": "GET /v1/{account_id}/payouts/chargebacks",
    "api_payouts_list_requests": "GET /v1/{account_id}/payouts/requests",
    "api_schedules_later_chat": "GET /v1/{account_id}/schedules/later/chat",
    "api_notifications_list": "GET /v1/{account_id}/notifications",
    "api_notifications_mark_read": "POST /v1/{account_id}/notifications/{type}/read",
    "api_gifs_trending": "GET /v1/gifs/trending",
}
_ANALYTICS = [
    "api_posts_list", "api_earnings_list", "api_earnings_read_overview", "api_earnings_read_chart",
    "api_reach_read_profile_visitors", "api_reach_list_promotions", "api_campaigns_read_overview",
    "api_campaigns_read_chart", "api_tracking_links_read", "api_promotions_trials_list",
    "api_payouts_list_chargebacks", "api_payouts_list_requests",
]
_MESSAGING = [
    "api_chats_list", "api_chats_list_chat_lists", "api_direct_messages_stats",
    "api_schedules_later_chat", "api_notifications_list", "api_notifications_mark_read",
    "api_gifs_trending", "api_vault_list_processing", "api_vault_list_lists",
]
ROLES = {
    "admin": ("Every route.", list(PERMISSIONS)),
    "reader": (
        "Every read route; cannot mark notifications read.",
        [p for p in PERMISSIONS if p != "api_notifications_mark_read"],
    ),
    "analytics": ("Earnings, payouts, posts, reach, campaigns and promotions.", _ANALYTICS),
    "messaging": ("Chats, messages, schedules, notifications, vault and GIFs.", _MESSAGING),
}


def _seed_roles_and_permissions() -> None:
    permissions = sa.table("permissions", sa.column("name"), sa.column("description"))
    roles = sa.table("roles", sa.column("name"), sa.column("description"))
    grants = sa.table("role_permissions", sa.column("role"), sa.column("permission"))
    op.bulk_insert(permissions, [{"name": n, "description": d} for n, d in PERMISSIONS.items()])
    op.bulk_insert(roles, [{"name": n, "description": d} for n, (d, _) in ROLES.items()])
    op.bulk_insert(
        grants, [{"role": r, "permission": p} for r, (_, ps) in ROLES.items() for p in ps]
    )


def upgrade() -> None:
    op.create_table('organizations',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('credit_balance', sa.BigInteger(), server_default=sa.text('0'), nullable=False),
    sa.Column('limit_minute', sa.Integer(), nullable=False),
    sa.Column('limit_day', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint('limit_minute > 0 AND limit_day > 0', name=op.f('ck_organizations_positive_limits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_organizations')),
    sa.UniqueConstraint('name', name=op.f('uq_organizations_name'))
    )
    op.create_table('permissions',
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_permissions'))
    )
    op.create_table('roles',
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_roles'))
    )
    op.create_table('sync_runs',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('resource', sa.Text(), nullable=False),
    sa.Column('kind', sa.Text(), nullable=False),
    sa.Column('worker', sa.Text(), nullable=True),
    sa.Column('status', sa.Text(), server_default=sa.text("'running'"), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('pages', sa.Integer(), server_default=sa.text('0'), nullable=False),
    sa.Column('rows_inserted', sa.BigInteger(), server_default=sa.text('0'), nullable=False),
    sa.Column('rows_updated', sa.BigInteger(), server_default=sa.text('0'), nullable=False),
    sa.Column('rows_unchanged', sa.BigInteger(), server_default=sa.text('0'), nullable=False),
    sa.Column('retries', sa.Integer(), server_default=sa.text('0'), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('details', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.CheckConstraint("status IN ('running', 'succeeded', 'failed', 'abandoned')", name=op.f('ck_sync_runs_known_status')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sync_runs'))
    )
    op.create_index(op.f('ix_sync_runs_account_id_resource_started_at'), 'sync_runs', ['account_id', 'resource', 'started_at'], unique=False)
    op.create_table('accounts',
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('organization_id', sa.BigInteger(), nullable=False),
    sa.Column('status', sa.Text(), server_default=sa.text("'active'"), nullable=False),
    sa.Column('upstream_token', sa.Text(), nullable=False),
    sa.Column('label', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('active', 'paused', 'credentials_rejected')", name=op.f('ck_accounts_known_status')),
    sa.ForeignKeyConstraint(['organization_id'], ['organizations.id'], name=op.f('fk_accounts_organization_id_organizations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_accounts'))
    )
    op.create_index(op.f('ix_accounts_organization_id'), 'accounts', ['organization_id'], unique=False)
    op.create_table('api_keys',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('organization_id', sa.BigInteger(), nullable=False),
    sa.Column('role', sa.Text(), nullable=False),
    sa.Column('name', sa.Text(), nullable=True),
    sa.Column('prefix', sa.Text(), nullable=False),
    sa.Column('key_hash', sa.LargeBinary(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['organization_id'], ['organizations.id'], name=op.f('fk_api_keys_organization_id_organizations'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['role'], ['roles.name'], name=op.f('fk_api_keys_role_roles')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_keys')),
    sa.UniqueConstraint('key_hash', name=op.f('uq_api_keys_key_hash'))
    )
    op.create_index(op.f('ix_api_keys_organization_id'), 'api_keys', ['organization_id'], unique=False)
    op.create_index(op.f('ix_api_keys_prefix'), 'api_keys', ['prefix'], unique=False)
    op.create_table('role_permissions',
    sa.Column('role', sa.Text(), nullable=False),
    sa.Column('permission', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['permission'], ['permissions.name'], name=op.f('fk_role_permissions_permission_permissions'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['role'], ['roles.name'], name=op.f('fk_role_permissions_role_roles'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('role', 'permission', name=op.f('pk_role_permissions'))
    )
    op.create_table('usage_counters',
    sa.Column('organization_id', sa.BigInteger(), nullable=False),
    sa.Column('granularity', sa.Text(), nullable=False),
    sa.Column('window_start', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used', sa.Integer(), server_default=sa.text('0'), nullable=False),
    sa.CheckConstraint("granularity IN ('minute', 'day')", name=op.f('ck_usage_counters_known_granularity')),
    sa.ForeignKeyConstraint(['organization_id'], ['organizations.id'], name=op.f('fk_usage_counters_organization_id_organizations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('organization_id', 'granularity', 'window_start', name=op.f('pk_usage_counters'))
    )
    op.create_table('sync_state',
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('resource', sa.Text(), nullable=False),
    sa.Column('cursor', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.Column('coverage_start', sa.DateTime(timezone=True), nullable=True),
    sa.Column('coverage_end', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_success_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('last_error_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_run_id', sa.BigInteger(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_sync_state_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('account_id', 'resource', name=op.f('pk_sync_state'))
    )
    op.create_table('usage_ledger',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('organization_id', sa.BigInteger(), nullable=False),
    sa.Column('api_key_id', sa.BigInteger(), nullable=True),
    sa.Column('account_id', sa.BigInteger(), nullable=True),
    sa.Column('method', sa.Text(), nullable=False),
    sa.Column('route', sa.Text(), nullable=False),
    sa.Column('status', sa.SmallInteger(), nullable=False),
    sa.Column('credits', sa.SmallInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['api_key_id'], ['api_keys.id'], name=op.f('fk_usage_ledger_api_key_id_api_keys'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['organization_id'], ['organizations.id'], name=op.f('fk_usage_ledger_organization_id_organizations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_usage_ledger'))
    )
    op.create_index(op.f('ix_usage_ledger_organization_id_created_at'), 'usage_ledger', ['organization_id', 'created_at'], unique=False)
    _seed_roles_and_permissions()


def downgrade() -> None:
    op.drop_index(op.f('ix_usage_ledger_organization_id_created_at'), table_name='usage_ledger')
    op.drop_table('usage_ledger')
    op.drop_table('sync_state')
    op.drop_table('usage_counters')
    op.drop_table('role_permissions')
    op.drop_index(op.f('ix_api_keys_prefix'), table_name='api_keys')
    op.drop_index(op.f('ix_api_keys_organization_id'), table_name='api_keys')
    op.drop_table('api_keys')
    op.drop_index(op.f('ix_accounts_organization_id'), table_name='accounts')
    op.drop_table('accounts')
    op.drop_index(op.f('ix_sync_runs_account_id_resource_started_at'), table_name='sync_runs')
    op.drop_table('sync_runs')
    op.drop_table('roles')
    op.drop_table('permissions')
    op.drop_table('organizations')
