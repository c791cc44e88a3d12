"""Platform tables: organizations, keys, roles and permissions, connected accounts,
metering, and the sync bookkeeping (state per account and resource, run log).

The synced resources' tables live in ``app/db/synced.py``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Identity,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    Text,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, created_at_column

ACCOUNT_STATUSES = ("active", "paused", "credentials_rejected")


class Organization(Base):
    __tablename__ = "organizations"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    # Prepaid credits; every metered request past authentication spends one.
    credit_balance: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    limit_minute: Mapped[int] = mapped_column(Integer)
    limit_day: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = created_at_column()

    __table_args__ = (
        CheckConstraint("limit_minute > 0 AND limit_day > 0", name="positive_limits"),
    )


class Permission(Base):
    __tablename__ = "permissions"

    name: Mapped[str] = mapped_column(Text, primary_key=True)
    description: Mapped[str] = mapped_column(Text)


class Role(Base):
    __tablename__ = "roles"

    name: Mapped[str] = mapped_column(Text, primary_key=True)
    description: Mapped[str] = mapped_column(Text)


class RolePermission(Base):
    __tablename__ = "role_permissions"

    role: Mapped[str] = mapped_column(
        Text, ForeignKey("roles.name", ondelete="CASCADE"), primary_key=True
    )
    permission: Mapped[str] = mapped_column(
        Text, ForeignKey("permissions.name", ondelete="CASCADE"), primary_key=True
    )


class ApiKey(Base):
    """An API key. Only a hash and a short visible prefix are stored, never the key."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    organization_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(Text, ForeignKey("roles.name"))
    name: Mapped[str | None] = mapped_column(Text)
    prefix: Mapped[str] = mapped_column(Text, index=True)
    key_hash: Mapped[bytes] = mapped_column(LargeBinary, unique=True)
    created_at: Mapped[datetime] = created_at_column()
    revoked_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]


class Account(Base):
    """A connected upstream account: the upstream numeric id, owned by one organization."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    organization_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE"), index=True
    )
    status: Mapped[str] = mapped_column(Text, server_default=text("'active'"))
    # The credential the upstream expects for this account (sent as a bearer token).
    upstream_token: Mapped[str] = mapped_column(Text)
    label: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = created_at_column()

    __table_args__ = (
        CheckConstraint(
            "status IN ('active', 'paused', 'credentials_rejected')", name="known_status"
        ),
    )


class UsageCounter(Base):
    """Requests counted per organization in one fixed UTC window (a minute or a day)."""

    __tablename__ = "usage_counters"

    organization_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True
    )
    granularity: Mapped[str] = mapped_column(Text, primary_key=True)
    window_start: Mapped[datetime] = mapped_column(primary_key=True)
    used: Mapped[int] = mapped_column(Integer, server_default=text("0"))

    __table_args__ = (CheckConstraint("granularity IN ('minute', 'day')", name="known_granularity"),)


class UsageLedger(Base):
    """One row per metered request."""

    __tablename__ = "usage_ledger"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    organization_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE")
    )
    api_key_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("api_keys.id", ondelete="SET NULL")
    )
    # Not a foreign key: a request may name an account the organization does not own.
    account_id: Mapped[int | None] = mapped_column(BigInteger)
    method: Mapped[str] = mapped_column(Text)
    route: Mapped[str] = mapped_column(Text)
    status: Mapped[int] = mapped_column(SmallInteger)
    credits: Mapped[int] = mapped_column(SmallInteger)
    created_at: Mapped[datetime] = created_at_column()

    __table_args__ = (Index(None, "organization_id", "created_at"),)


class SyncState(Base):
    """Where the sync of one (account, resource) stands, and what the store covers."""

    __tablename__ = "sync_state"

    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    resource: Mapped[str] = mapped_column(Text, primary_key=True)
    cursor: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # The time range the store holds completely for this (account, resource).
    coverage_start: Mapped[datetime | None]
    coverage_end: Mapped[datetime | None]
    last_success_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    last_error_at: Mapped[datetime | None]
    last_run_id: Mapped[int | None] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = created_at_column()


class SyncRun(Base):
    """The record every sync run leaves: what it did and how it ended."""

    __tablename__ = "sync_runs"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger)
    resource: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)
    worker: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text, server_default=text("'running'"))
    started_at: Mapped[datetime] = created_at_column()
    finished_at: Mapped[datetime | None]
    pages: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    rows_inserted: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    rows_updated: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    rows_unchanged: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    retries: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    error: Mapped[str | None] = mapped_column(Text)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSONB)

    __table_args__ = (
        CheckConstraint(
            "status IN ('running', 'succeeded', 'failed', 'abandoned')", name="known_status"
        ),
        Index(None, "account_id", "resource", "started_at"),
    )
