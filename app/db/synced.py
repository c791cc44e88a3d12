"""Tables of the synced resources, and the task table the sync workers lease.

Every synced table follows one layout (see docs/data.md for each column):

- the primary key starts with ``account_id`` and ends with the upstream id, and every
  secondary index starts with ``account_id``: the store is partition-ready by account
  (``PARTITION BY HASH (account_id)`` changes no key, no index and no query);
- typed columns for each field a store-served route filters, orders, pages or aggregates
  on, computed from the payload by the one mapping both writers use
  (``app/store/mapping.py``: the sync writer and the store's write-back);
- ``payload``: the upstream row verbatim, which the store routes return;
- ``first_seen_at``, ``last_synced_at`` (the last time a sync changed the row) and
  ``sync_run_id`` (the ``sync_runs`` row that last changed it).

There are no foreign keys from synced rows to ``accounts``: a page of 1,000 rows would
pay 1,000 key checks on the hot write path. Deleting an account cascades to its
``sync_state`` and ``sync_tasks`` rows only; its synced rows stay until deleted by
``account_id`` (pausing an account, ``relay accounts disconnect``, keeps them on purpose).
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, created_at_column
from app.db.tenancy import per_account


class SyncedRow:
    """The bookkeeping columns every synced table ends with, and its per-account declaration
    (``app/db/tenancy.py``: analysts' row-level security, the Citus distribution column)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)  # maps the class: its __table__ exists after this
        cls.__table__.info.update(per_account())

    payload: Mapped[dict[str, Any]] = mapped_column(JSONB)
    first_seen_at: Mapped[datetime] = mapped_column(server_default=func.now())
    last_synced_at: Mapped[datetime] = mapped_column(server_default=func.now())
    sync_run_id: Mapped[int | None] = mapped_column(BigInteger)


def account_key() -> Mapped[int]:
    return mapped_column(BigInteger, primary_key=True, autoincrement=False)


class Earning(SyncedRow, Base):
    """One earnings transaction. ``type`` and ``tips_source`` come from the upstream query
    that returned the row (the feed is read per type and per tips source), never from text."""

    __tablename__ = "earnings"

    account_id: Mapped[int] = account_key()
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    type: Mapped[str] = mapped_column(Text)
    tips_source: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    status: Mapped[str | None] = mapped_column(Text)
    amount: Mapped[Decimal] = mapped_column(Numeric)  # gross
    net: Mapped[Decimal] = mapped_column(Numeric)
    fee: Mapped[Decimal] = mapped_column(Numeric)
    vat_amount: Mapped[Decimal | None] = mapped_column(Numeric)
    tax_amount: Mapped[Decimal | None] = mapped_column(Numeric)
    media_tax_amount: Mapped[Decimal | None] = mapped_column(Numeric)
    currency: Mapped[str | None] = mapped_column(Text)
    payout_pending_days: Mapped[int | None] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(BigInteger)

    __table_args__ = (
        # The feed's keyset paging and any date-range filter or sum over all types.
        Index(None, "account_id", "created_at", "id"),
        # Per-type and per-tips-source filters and chart series.
        Index(None, "account_id", "type", "tips_source", "created_at"),
    )


def ordinal_column() -> Mapped[int | None]:
    """``ord``: the row's dense number in its account's ``(created_at, id)`` order, kept by
    triggers (migration 0010); offset pages read ordinal ranges (``app/store/snapshot.py``)."""
    return mapped_column(BigInteger)


def ordinal_key() -> UniqueConstraint:
    # Deferrable: renumbering shifts ordinals through each other within one statement.
    return UniqueConstraint("account_id", "ord", deferrable=True, initially="IMMEDIATE")


class Chargeback(SyncedRow, Base):
    """One chargeback; ``created_at`` is the filing date (the endpoint's date filter)."""

    __tablename__ = "chargebacks"

    account_id: Mapped[int] = account_key()
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    created_at: Mapped[datetime]
    payment_type: Mapped[str | None] = mapped_column(Text)
    payment_id: Mapped[str | None] = mapped_column(Text)
    payment_created_at: Mapped[datetime | None]
    amount: Mapped[Decimal | None] = mapped_column(Numeric)
    net: Mapped[Decimal | None] = mapped_column(Numeric)
    fee: Mapped[Decimal | None] = mapped_column(Numeric)
    currency: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(Text)
    user_id: Mapped[int | None] = mapped_column(BigInteger)
    ord: Mapped[int | None] = ordinal_column()

    __table_args__ = (Index(None, "account_id", "created_at", "id"), ordinal_key())


class PayoutRequest(SyncedRow, Base):
    """One withdrawal request; ``id`` holds the upstream ``invoiceId``."""

    __tablename__ = "payout_requests"

    account_id: Mapped[int] = account_key()
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    created_at: Mapped[datetime]
    amount: Mapped[Decimal | None] = mapped_column(Numeric)
    currency: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str | None] = mapped_column(Text)
    reject_reason: Mapped[str | None] = mapped_column(Text)
    ord: Mapped[int | None] = ordinal_column()

    __table_args__ = (Index(None, "account_id", "created_at", "id"), ordinal_key())


class Post(SyncedRow, Base):
    """One post of the creator's feed."""

    __tablename__ = "posts"

    account_id: Mapped[int] = account_key()
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    posted_at: Mapped[datetime]
    # Unix seconds with six decimals: the feed's order and cursor (exact, unlike a float).
    posted_at_precise: Mapped[Decimal] = mapped_column(Numeric)
    favorites_count: Mapped[int | None] = mapped_column(Integer)
    tips_amount: Mapped[Decimal | None] = mapped_column(Numeric)
    is_pinned: Mapped[bool | None] = mapped_column(Boolean)
    is_archived: Mapped[bool | None] = mapped_column(Boolean)
    is_private_archived: Mapped[bool | None] = mapped_column(Boolean)
    label_ids: Mapped[list[int] | None] = mapped_column(ARRAY(BigInteger))
    # Distinct media types of the post (photo, video, audio), for the media_type filter.
    media_types: Mapped[list[str] | None] = mapped_column(ARRAY(Text))
    media_count: Mapped[int | None] = mapped_column(Integer)
    raw_text: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index(None, "account_id", "posted_at_precise", "id"),
        Index(None, "account_id", "favorites_count", "id"),
        Index(None, "account_id", "tips_amount", "id"),
    )


class TrackingLink(SyncedRow, Base):
    """One tracking link (campaign). Its metrics are the sums of its daily stats."""

    __tablename__ = "tracking_links"

    account_id: Mapped[int] = account_key()
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    name: Mapped[str | None] = mapped_column(Text)
    campaign_code: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime | None]

    __table_args__ = (Index(None, "account_id", "created_at"),)


class TrackingLinkDailyStat(SyncedRow, Base):
    """One day of one tracking link's metrics (the campaigns overview and chart sum these)."""

    __tablename__ = "tracking_link_daily_stats"

    account_id: Mapped[int] = account_key()
    link_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    date: Mapped[date] = mapped_column(Date, primary_key=True)
    clicks: Mapped[int | None] = mapped_column(Integer)
    subs: Mapped[int | None] = mapped_column(Integer)
    revenue: Mapped[Decimal | None] = mapped_column(Numeric)
    spenders: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (Index(None, "account_id", "date"),)


class SyncTask(Base):
    """The work queue and the lease of one (account, resource).

    One row per pair, so one lease covers every kind of work on it (incremental sync,
    backfill, reconciliation): two workers can never write the same pair at once.
    APScheduler ticks insert missing rows (idempotently); workers claim due rows with
    ``FOR UPDATE SKIP LOCKED`` and hold them with an expiring, heartbeated lease.
    """

    __tablename__ = "sync_tasks"

    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    resource: Mapped[str] = mapped_column(Text, primary_key=True)
    # When the task may next be claimed (incremental due, backfill slice, or retry).
    due_at: Mapped[datetime] = mapped_column(server_default=func.now())
    # When the next incremental sync is due (due_at may be earlier for backfill slices).
    next_incremental_at: Mapped[datetime] = mapped_column(server_default=func.now())
    # A requested backfill down to this instant; cleared once coverage reaches it.
    backfill_since: Mapped[datetime | None]
    # A requested reconciliation re-read of the covered range from this instant.
    reconcile_since: Mapped[datetime | None]
    lease_owner: Mapped[str | None] = mapped_column(Text)
    lease_token: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    lease_expires_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]
    # Consecutive failed runs: the retry delay doubles with each.
    failures: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = created_at_column()

    __table_args__ = (Index(None, "due_at"),)
