"""The upstream request budget shared by every worker process, one row per account.

``upstream_budget`` is a token bucket per upstream account kept in PostgreSQL, so any
number of worker processes on any number of machines draw from one budget per account
(``sync/upstream_budget.py`` takes tokens with one atomic statement; the clock is the database's).
``tokens`` may go below zero: a negative value is the time slots already promised to
callers that are waiting for them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Double, func
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.tenancy import per_account


class UpstreamBudget(Base):
    __tablename__ = "upstream_budget"
    __table_args__ = {"info": per_account(analysts=False)}

    # No foreign key to accounts: distributed by account on Citus (docs/scaling.md, item 3).
    account_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    tokens: Mapped[float] = mapped_column(Double)
    updated_at: Mapped[datetime] = mapped_column(server_default=func.clock_timestamp())
