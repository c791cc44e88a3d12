"""Platform tables: organizations, keys, roles and permissions, connected accounts,
metering, and the sync bookkeeping (state per account and resource, run log).

The synced resources' tables live in ``app/db/synced.py``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Identity,
    Index,
    Integer,
    LargeBinary,
    PrimaryKeyConstraint,
    SmallInteger,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, created_at_column
from app.db.tenancy import on_every_node, per_account

ACCOUNT_STATUSES = ("active", "paused", "credentials_rejected")


class Organization(Base):
    __tablename__ = "organizations"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    # Prepaid credits; every metered request past authentication spends one while any are
    # left (it never goes below zero; see docs/api-decisions.md, "402").
    credit_balance: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    limit_minute: Mapped[int] = mapped_column(Integer)
    limit_day: Mapped[int] = mapped_column(Integer)
    # The current fixed UTC windows and the requests counted in them. They live on the
    # organization row so that the gate's one UPDATE of that row checks and counts both
    # windows and the balance atomically (the row lock serializes an organization's
    # requests across every API process). Past windows are in the ledger.
    minute_window: Mapped[datetime | None]
    minute_used: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    day_window: Mapped[datetime | None]
    day_used: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    # Until when an allowance reserved for an API process may still give admissions back:
    # till then the gate defers a request that does not fit instead of refusing it.
    reserved_until: Mapped[datetime | None]
    # The admissions those allowances reserved: at most that many requests wait for them.
    reserved: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    created_at: Mapped[datetime] = created_at_column()

    __table_args__ = (
        CheckConstraint("limit_minute > 0 AND limit_day > 0", name="positive_limits"),
        CheckConstraint("credit_balance >= 0", name="balance_not_negative"),
    )


class CreditGrant(Base):
    """Credits added to an organization's balance (``relay credits add``): the audit trail
    that makes ``balance = sum(grants) - debited ledger rows`` checkable."""

    __tablename__ = "credit_grants"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    organization_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE"), index=True
    )
    amount: Mapped[int] = mapped_column(BigInteger)
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = created_at_column()

    __table_args__ = (CheckConstraint("amount > 0", name="positive_amount"),)


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
    # Set by `relay keys rotate`: the old key keeps working until then (the overlap window).
    expires_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]


class StatusSession(Base):
    """A browser's sign-in to ``GET /status`` (app/routes/status.py): the digest of the
    session cookie's random value, the admin key it was opened with, and its end. Each view
    checks the key as it is now, so revoking or expiring the key ends its sessions at once."""

    __tablename__ = "status_sessions"

    token_hash: Mapped[bytes] = mapped_column(LargeBinary, primary_key=True)
    api_key_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("api_keys.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = created_at_column()
    expires_at: Mapped[datetime]


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


class UsageLedger(Base):
    """One row per metered request."""

    __tablename__ = "usage_ledger"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    # Not foreign keys: their checks doubled the cost of writing a row, and the gate writes
    # rows only for organizations and keys it has just read (migration 0014).
    organization_id: Mapped[int] = mapped_column(BigInteger)
    api_key_id: Mapped[int | None] = mapped_column(BigInteger)
    # Not a foreign key: a request may name an account the organization does not own.
    account_id: Mapped[int | None] = mapped_column(BigInteger)
    method: Mapped[str] = mapped_column(Text)
    route: Mapped[str] = mapped_column(Text)
    # The response's status: the row is written after the response, in batches
    # (app/gate/ledger.py). NULL only in rows of releases that wrote them before the handler.
    status: Mapped[int | None] = mapped_column(SmallInteger)
    # Credits the request used: 1 for a metered request (the spec's charge); 0 for one
    # answered 5xx or cut by its client (499), and for a /status view (docs/api-decisions.md).
    credits: Mapped[int] = mapped_column(SmallInteger)
    # Whether that credit came off the balance (false once the balance is spent: the 402s,
    # and the errors that outrank 402 in the check order; false when credits is 0).
    debited: Mapped[bool] = mapped_column(Boolean)
    # The time the request was counted at; its minute and day are the windows it used.
    created_at: Mapped[datetime] = created_at_column()
    # The request's id (its X-Request-ID), also on its log lines.
    request_id: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index(None, "organization_id", "created_at"),
    )


class SyncState(Base):
    """Where the sync of one (account, resource) stands, and what the store covers."""

    __tablename__ = "sync_state"
    # Analysts read what the sync_coverage view shows (migration 0015), not the cursor.
    __table_args__ = {"info": per_account(analyst_columns=(
        "account_id", "resource", "coverage_start", "coverage_end", "last_success_at",
        "last_error", "last_error_at",
    ))}

    # No foreign key to accounts: a distributed table cannot reference a coordinator table
    # (docs/scaling.md, item 3; migration 0021). Nothing deletes accounts.
    account_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
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

    id: Mapped[int] = mapped_column(BigInteger, Identity())
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
        # The account first: Citus requires a distributed table's key to hold its
        # distribution column (docs/scaling.md; migration 0021). Statements by run name both.
        PrimaryKeyConstraint("account_id", "id"),
        CheckConstraint(
            "status IN ('running', 'succeeded', 'failed', 'abandoned')", name="known_status"
        ),
        Index(None, "account_id", "resource", "started_at"),
        {"info": per_account(analysts=False)},
    )


class AnalystRole(Base):
    """A PostgreSQL role made by ``relay db grant-readonly``: which organization's rows it
    reads (NULL: every organization's). Row-level security reads this table
    (``app/db/tenancy.py``); a role not in it reads no per-account row."""

    __tablename__ = "analyst_roles"

    role_name: Mapped[str] = mapped_column(Text, primary_key=True)
    organization_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = created_at_column()


class AnalystScope(Base):
    """What each registered analyst role reads: every account (``all_accounts``) or the
    accounts in ``account_ids``. A copy of ``analyst_roles`` joined with ``accounts``, written
    only by ``refresh_analyst_scopes()`` (migration 0023), and the one table the policies
    read: on a Citus cluster they run on the workers, so it is on every node. No foreign
    key: a reference table may not point at a coordinator table."""

    __tablename__ = "analyst_scopes"
    __table_args__ = {"info": on_every_node()}

    role_name: Mapped[str] = mapped_column(Text, primary_key=True)
    all_accounts: Mapped[bool] = mapped_column(Boolean)
    account_ids: Mapped[list[int]] = mapped_column(ARRAY(BigInteger))


class Schedule(Base):
    """A backfill, reconcile or export that the workers run on a cron (``relay schedules``,
    docs/sync.md "Schedules"). The row is also the lock of its runs: a worker claims a due
    schedule with ``FOR UPDATE SKIP LOCKED`` and moves ``next_run_at`` in the same
    transaction, so each due time runs once whatever the number of workers."""

    __tablename__ = "schedules"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    organization_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE"), index=True
    )
    # NULL: every active account of the organization (resource: every resource) at run time.
    account_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE")
    )
    resource: Mapped[str | None] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text)
    cron: Mapped[str] = mapped_column(Text)
    timezone: Mapped[str] = mapped_column(Text, server_default=text("'UTC'"))
    # As given (a duration back from the due time, or a date); NULL: the action's default.
    since: Mapped[str | None] = mapped_column(Text)
    export_format: Mapped[str | None] = mapped_column(Text)
    export_dir: Mapped[str | None] = mapped_column(Text)
    paused: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    # The next due time (upstream clock, RELAY_SYNC_CLOCK), always computed from "now".
    next_run_at: Mapped[datetime]
    # The due time whose run has not succeeded yet, and when it is tried (again).
    pending_due_at: Mapped[datetime | None]
    retry_at: Mapped[datetime | None]
    failures: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    lease_owner: Mapped[str | None] = mapped_column(Text)
    lease_expires_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = created_at_column()

    __table_args__ = (
        CheckConstraint("action IN ('backfill', 'reconcile', 'export')", name="known_action"),
        CheckConstraint(
            "(action = 'export') = (export_format IS NOT NULL AND export_dir IS NOT NULL)",
            name="export_target",
        ),
        CheckConstraint("export_format IS NULL OR export_format IN ('csv', 'parquet')", name="known_format"),
        Index(None, "next_run_at", postgresql_where=text("NOT paused")),
    )


class ScheduleRun(Base):
    """One attempt at one due time of a schedule: what it did and how it ended."""

    __tablename__ = "schedule_runs"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    schedule_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("schedules.id", ondelete="CASCADE")
    )
    due_at: Mapped[datetime]
    attempt: Mapped[int] = mapped_column(Integer)
    worker: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text, server_default=text("'running'"))
    started_at: Mapped[datetime] = created_at_column()
    finished_at: Mapped[datetime | None]
    rows_read: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    rows_changed: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    error: Mapped[str | None] = mapped_column(Text)
    # The targets, and for exports each file with its window and rows.
    details: Mapped[dict[str, Any] | None] = mapped_column(JSONB)

    __table_args__ = (
        CheckConstraint(
            "status IN ('running', 'succeeded', 'failed', 'abandoned')", name="known_status"
        ),
        # Each due time is run once: a second claim of it can only be a retry (attempt + 1).
        UniqueConstraint("schedule_id", "due_at", "attempt"),
    )
