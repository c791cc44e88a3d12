"""Rollups the store keeps next to the synced tables, for answers that would otherwise scan.

``earnings_daily`` holds, per account, UTC day, type and tips source, the number of
earnings rows and their net and gross sums. Triggers on ``earnings`` keep it exact on every
insert, update, delete and truncate, whoever writes (the sync, a live write-back, a manual
fix), so it is never stale and needs no refresh job (migration 0004). The earnings chart
reads whole days from here: a two-year chart sums ~730 days x 9 lanes instead of every row.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import BigInteger, Date, Numeric, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base


class EarningsDaily(Base):
    __tablename__ = "earnings_daily"

    account_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    type: Mapped[str] = mapped_column(Text, primary_key=True)
    # '' for rows without a tips source (a primary key column cannot be NULL).
    tips_source: Mapped[str] = mapped_column(Text, primary_key=True, server_default=text("''"))
    rows: Mapped[int] = mapped_column(BigInteger)
    net: Mapped[Decimal] = mapped_column(Numeric)
    gross: Mapped[Decimal] = mapped_column(Numeric)
