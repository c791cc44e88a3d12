"""Tables of the synced resources, and the task table the sync workers lease.

Every synced table follows one layout (see docs/data.md for each column):

- the primary key starts with ``account_id`` and ends with the upstream id, and every
  secondary index starts with ``account_id``: the store is partition-ready by account
  (``PARTITION BY HASH (account_id)`` changes no key, no index and no query);
- typed columns for each field a store-served route filters, orders, pages or aggregates
  on, each declared beside the SQL that computes it from the payload, which both writers
  run (``app/db/declaration.py``; ``app/store/mapping.py``: the sync writer and the
  store's write-back);
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
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql import FromClause

from app.db.base import Base, created_at_column
from app.db.declaration import ORDINAL, SYNCED, Events, Synced, payload
from app.db.tenancy import per_account


class SyncedRow:
    """The bookkeeping columns every synced table ends with; its declaration
    (``__synced__``, ``app/db/declaration.py``) and its being per-account
    (``app/db/tenancy.py``: analysts' row-level security, the Citus distribution column)
    go into its table's ``info``."""

    __synced__: Synced

    if TYPE_CHECKING:  # the mapped subclass's, made by the declarative base
        __table__: ClassVar[FromClause]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)  # maps the class: its __table__ exists after this
        table = cls.__table__
        assert isinstance(table, Table)  # a declarative model's: its columns declared here
        table.info.update(per_account(), **{SYNCED: cls.__synced__})

    payload: Mapped[dict[str, Any]] = mapped_column(JSONB)
    first_seen_at: Mapped[datetime] = mapped_column(server_default=func.now())
    last_synced_at: Mapped[datetime] = mapped_column(server_default=func.now())
    sync_run_id: Mapped[int | None] = mapped_column(BigInteger)


def account_key() -> Mapped[int]:
    return mapped_column(BigInteger, primary_key=True, autoincrement=False)


def source(expression: str, *args: Any, **kwargs: Any) -> Any:
    """A typed column computed from the payload by ``expression`` (SQL over ``p``)."""
    return mapped_column(*args, info=payload(expression), **kwargs)


def upstream_key(expression: str, type_: Any = BigInteger) -> Any:
    """The upstream id: the key's last column, computed from the payload."""
    return source(expression, type_, primary_key=True, autoincrement=False)


CREATED_AT = "(p->>'createdAt')::timestamptz"


class Earning(SyncedRow, Base):
    """One earnings transaction. ``type`` and ``tips_source`` come from the upstream query
    that returned the row (the feed is read per type and per tips source), never from text."""

    __tablename__ = "earnings"
    __synced__ = Synced("created_at", events=Events(
        created="a new earnings transaction stored by the sync",
        updated_fields=("status", "amount", "net", "fee", "vat_amount", "tax_amount", "media_tax_amount"),
        updated="an earnings row's status or amounts changed"))

    account_id: Mapped[int] = account_key()
    id: Mapped[str] = upstream_key("p->>'id'", Text)
    type: Mapped[str] = source("%(type)s::text", Text)
    tips_source: Mapped[str | None] = source("%(tips_source)s::text", Text)
    created_at: Mapped[datetime] = source(CREATED_AT)
    status: Mapped[str | None] = source("p->>'status'", Text)
    amount: Mapped[Decimal] = source("(p->>'amount')::numeric", Numeric)  # gross
    net: Mapped[Decimal] = source("(p->>'net')::numeric", Numeric)
    fee: Mapped[Decimal] = source("(p->>'fee')::numeric", Numeric)
    vat_amount: Mapped[Decimal | None] = source("(p->>'vatAmount')::numeric", Numeric)
    tax_amount: Mapped[Decimal | None] = source("(p->>'taxAmount')::numeric", Numeric)
    media_tax_amount: Mapped[Decimal | None] = source("(p->>'mediaTaxAmount')::numeric", Numeric)
    currency: Mapped[str | None] = source("p->>'currency'", Text)
    payout_pending_days: Mapped[int | None] = source("(p->>'payoutPendingDays')::int", Integer)
    user_id: Mapped[int | None] = source("(p->'user'->>'id')::bigint", BigInteger)

    __table_args__ = (
        # The feed's keyset paging and any date-range filter or sum over all types.
        Index(None, "account_id", "created_at", "id"),
        # Per-type and per-tips-source filters and chart series.
        Index(None, "account_id", "type", "tips_source", "created_at"),
    )


def ordinal_column() -> Mapped[int | None]:
    """``ord``: the row's dense number in its account's ``(created_at, id)`` order, kept by
    the writers (``app/store/upkeep.py``; the renumbering function of migrations 0010 and
    0020); offset pages read ordinal ranges (``app/store/snapshot.py``)."""
    return mapped_column(BigInteger, info={ORDINAL: True})


def ordinal_key() -> UniqueConstraint:
    # Deferrable: renumbering shifts ordinals through each other within one statement.
    return UniqueConstraint("account_id", "ord", deferrable=True, initially="IMMEDIATE")


class Chargeback(SyncedRow, Base):
    """One chargeback; ``created_at`` is the filing date (the endpoint's date filter)."""

    __tablename__ = "chargebacks"
    __synced__ = Synced("created_at", events=Events(created="a new chargeback stored"))

    account_id: Mapped[int] = account_key()
    id: Mapped[int] = upstream_key("(p->>'id')::bigint")
    created_at: Mapped[datetime] = source(CREATED_AT)
    payment_type: Mapped[str | None] = source("p->>'paymentType'", Text)
    payment_id: Mapped[str | None] = source("p->'payment'->>'id'", Text)
    payment_created_at: Mapped[datetime | None] = source("(p->'payment'->>'createdAt')::timestamptz")
    amount: Mapped[Decimal | None] = source("(p->'payment'->>'amount')::numeric", Numeric)
    net: Mapped[Decimal | None] = source("(p->'payment'->>'net')::numeric", Numeric)
    fee: Mapped[Decimal | None] = source("(p->'payment'->>'fee')::numeric", Numeric)
    currency: Mapped[str | None] = source("p->'payment'->>'currency'", Text)
    status: Mapped[str | None] = source("p->'payment'->>'status'", Text)
    user_id: Mapped[int | None] = source("(p->'payment'->'user'->>'id')::bigint", BigInteger)
    ord: Mapped[int | None] = ordinal_column()

    __table_args__ = (Index(None, "account_id", "created_at", "id"), ordinal_key())


class PayoutRequest(SyncedRow, Base):
    """One withdrawal request; ``id`` holds the upstream ``invoiceId``."""

    __tablename__ = "payout_requests"
    __synced__ = Synced("created_at", events=Events(
        created="a new payout request stored", updated_fields=("state",),
        updated="a payout request's state changed"))

    account_id: Mapped[int] = account_key()
    id: Mapped[str] = upstream_key("p->>'invoiceId'", Text)
    created_at: Mapped[datetime] = source(CREATED_AT)
    amount: Mapped[Decimal | None] = source("(p->>'amount')::numeric", Numeric)
    currency: Mapped[str | None] = source("p->>'currency'", Text)
    state: Mapped[str | None] = source("p->>'state'", Text)
    reject_reason: Mapped[str | None] = source("p->>'rejectReason'", Text)
    ord: Mapped[int | None] = ordinal_column()

    __table_args__ = (Index(None, "account_id", "created_at", "id"), ordinal_key())


class Post(SyncedRow, Base):
    """One post of the creator's feed."""

    __tablename__ = "posts"
    __synced__ = Synced("posted_at", events=Events(created="a new post stored"))

    account_id: Mapped[int] = account_key()
    id: Mapped[int] = upstream_key("(p->>'id')::bigint")
    posted_at: Mapped[datetime] = source("(p->>'postedAt')::timestamptz")
    # Unix seconds with six decimals: the feed's order and cursor (exact, unlike a float).
    posted_at_precise: Mapped[Decimal] = source("(p->>'postedAtPrecise')::numeric", Numeric)
    favorites_count: Mapped[int | None] = source("(p->>'favoritesCount')::int", Integer)
    # "$1,234.50" -> 1234.50
    tips_amount: Mapped[Decimal | None] = source(
        "nullif(regexp_replace(p->>'tipsAmount', '[^0-9.-]', '', 'g'), '')::numeric", Numeric)
    is_pinned: Mapped[bool | None] = source("(p->>'isPinned')::boolean", Boolean)
    is_archived: Mapped[bool | None] = source("(p->>'isArchived')::boolean", Boolean)
    is_private_archived: Mapped[bool | None] = source("(p->>'isPrivateArchived')::boolean", Boolean)
    label_ids: Mapped[list[int] | None] = source(
        "ARRAY(SELECT jsonb_array_elements_text(p->'labelIds')::bigint)", ARRAY(BigInteger))
    # Distinct media types of the post (photo, video, audio), for the media_type filter.
    media_types: Mapped[list[str] | None] = source(
        "ARRAY(SELECT DISTINCT m->>'type' FROM jsonb_array_elements(p->'media') m ORDER BY 1)", ARRAY(Text))
    media_count: Mapped[int | None] = source("(p->>'mediaCount')::int", Integer)
    raw_text: Mapped[str | None] = source("p->>'rawText'", Text)

    __table_args__ = (
        Index(None, "account_id", "posted_at_precise", "id"),
        Index(None, "account_id", "favorites_count", "id"),
        Index(None, "account_id", "tips_amount", "id"),
    )


class TrackingLink(SyncedRow, Base):
    """One tracking link (campaign). Its metrics are the sums of its daily stats."""

    __tablename__ = "tracking_links"
    __synced__ = Synced("created_at", exported=False)

    account_id: Mapped[int] = account_key()
    id: Mapped[int] = upstream_key("(p->>'id')::bigint")
    name: Mapped[str | None] = source("p->>'name'", Text)
    campaign_code: Mapped[str | None] = source("p->>'campaignCode'", Text)
    url: Mapped[str | None] = source("p->>'url'", Text)
    created_at: Mapped[datetime | None] = source(CREATED_AT)

    __table_args__ = (Index(None, "account_id", "created_at"),)


class TrackingLinkDailyStat(SyncedRow, Base):
    """One day of one tracking link's metrics (the campaigns overview and chart sum these)."""

    __tablename__ = "tracking_link_daily_stats"
    __synced__ = Synced("date", exported=False)

    account_id: Mapped[int] = account_key()
    # The link the stats query asked about (a constant of the query, not of the row).
    link_id: Mapped[int] = source("%(link_id)s::bigint", BigInteger, primary_key=True, autoincrement=False)
    date: Mapped[date] = source("(p->>'timestamp')::date", Date, primary_key=True)
    clicks: Mapped[int | None] = source("(p->>'clicks')::int", Integer)
    subs: Mapped[int | None] = source("(p->>'subs')::int", Integer)
    revenue: Mapped[Decimal | None] = source("(p->>'revenue')::numeric", Numeric)
    spenders: Mapped[int | None] = source("(p->>'spenders')::int", Integer)

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
