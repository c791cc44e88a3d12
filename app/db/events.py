"""Tables of the change events: the outbox, webhook endpoints, their delivery log, and the
record maintenance jobs leave.

Events are written by statement-level triggers on the synced tables (migration 0006), in
the statement that changes the rows, so no writer can change a row without its event or
write an event without its row. See docs/events.md.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Identity, Index, Integer, Text, func, text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, created_at_column

ENDPOINT_STATUSES = ("active", "disabled")


class Event(Base):
    """One change: a row created or changed by the sync, or an account/sync milestone."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    # The writing transaction's id (xid8 as bigint). The feed orders by (tx, id) and hands
    # out only events of transactions older than every one still running, so an event
    # that commits late can never land behind a consumer's cursor.
    tx: Mapped[int] = mapped_column(BigInteger, server_default=text("(pg_current_xact_id()::text)::bigint"))
    event_id: Mapped[uuid.UUID] = mapped_column(UUID, unique=True, server_default=func.gen_random_uuid())
    type: Mapped[str] = mapped_column(Text)
    organization_id: Mapped[int] = mapped_column(BigInteger)
    account_id: Mapped[int | None] = mapped_column(BigInteger)
    occurred_at: Mapped[datetime] = created_at_column()
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSONB)

    __table_args__ = (
        Index(None, "organization_id", "tx", "id"),
        Index(None, "occurred_at"),
    )


class WebhookEndpoint(Base):
    """A receiver of an organization's events, with its delivery position and retry state."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    organization_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("organizations.id", ondelete="CASCADE"), index=True
    )
    url: Mapped[str] = mapped_column(Text)
    # NULL: every type.
    event_types: Mapped[list[str] | None] = mapped_column(ARRAY(Text))
    secret: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text, server_default=text("'active'"))
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    disabled_at: Mapped[datetime | None]
    # The last event delivered (feed position): deliveries go strictly in feed order.
    cursor_tx: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    cursor_id: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    next_attempt_at: Mapped[datetime] = created_at_column()
    # Failed attempts of the event at the head of the queue, and since when it fails.
    attempts: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    failing_since: Mapped[datetime | None]
    locked_until: Mapped[datetime | None]
    locked_by: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = created_at_column()

    __table_args__ = (CheckConstraint("status IN ('active', 'disabled')", name="known_status"),)


class WebhookDelivery(Base):
    """One delivery attempt (kept ``webhook_delivery_log_days``)."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    endpoint_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("webhook_endpoints.id", ondelete="CASCADE")
    )
    # events.id; no foreign key: events are pruned on their own schedule. NULL: the attempt
    # sent a `relay webhooks test` event (never stored).
    event_id: Mapped[int | None] = mapped_column(BigInteger)
    attempt: Mapped[int] = mapped_column(Integer)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    duration_ms: Mapped[int] = mapped_column(Integer)
    delivered: Mapped[bool]
    created_at: Mapped[datetime] = created_at_column()

    __table_args__ = (Index(None, "endpoint_id", "created_at"), Index(None, "created_at"))


class MaintenanceRun(Base):
    """The record a maintenance job (event pruning, delivery-log pruning) leaves."""

    __tablename__ = "maintenance_runs"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    job: Mapped[str] = mapped_column(Text)
    worker: Mapped[str | None] = mapped_column(Text)
    ran_at: Mapped[datetime] = created_at_column()
    deleted: Mapped[int] = mapped_column(BigInteger)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
