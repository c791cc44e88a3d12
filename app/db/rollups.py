"""Rollups the store keeps next to the synced tables, for answers that would otherwise scan.

``earnings_daily`` holds, per account, UTC day, type and tips source, the number of
earnings rows and their net and gross sums. Triggers on ``earnings`` keep it exact on every
insert, update, delete and truncate, whoever writes (the sync, a live write-back, a manual
fix), so it is never stale and needs no refresh job (migration 0004). The earnings chart
reads whole days from here: a two-year chart sums ~730 days x 9 lanes instead of every row.

``posts_counters`` holds, per account, the posts feed's counters block (visible posts, each
archive, media of visible posts by type), kept exact the same way by triggers on ``posts``
(migration 0011): the block is one row read, not a scan of the account's posts.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import BigInteger, Date, Numeric, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.tenancy import per_account


class EarningsDaily(Base):
    __tablename__ = "earnings_daily"
    __table_args__ = {"info": per_account()}

    account_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    type: Mapped[str] = mapped_column(Text, primary_key=True)
    # '' for rows without a tips source (a primary key column cannot be NULL).
    tips_source: Mapped[str] = mapped_column(Text, primary_key=True, server_default=text("''"))
    rows: Mapped[int] = mapped_column(BigInteger)
    net: Mapped[Decimal] = mapped_column(Numeric)
    gross: Mapped[Decimal] = mapped_column(Numeric)


class PostsCounters(Base):
    __tablename__ = "posts_counters"
    __table_args__ = {"info": per_account()}

    account_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    # Visible posts: neither archived nor private-archived.
    posts: Mapped[int] = mapped_column(BigInteger)
    archived: Mapped[int] = mapped_column(BigInteger)
    private_archived: Mapped[int] = mapped_column(BigInteger)
    # Media items of the visible posts, by type.
    photos: Mapped[int] = mapped_column(BigInteger)
    videos: Mapped[int] = mapped_column(BigInteger)
    audios: Mapped[int] = mapped_column(BigInteger)
