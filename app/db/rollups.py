"""Rollups the store keeps next to the synced tables, for answers that would otherwise scan.

``earnings_daily`` holds, per account, UTC day, type and tips source, the number of
earnings rows and their net and gross sums; the earnings chart reads whole days from here:
a two-year chart sums ~730 days x 9 lanes instead of every row. ``posts_counters`` holds,
per account, the posts feed's counters block (visible posts, each archive, media of visible
posts by type): the block is one row read, not a scan of the account's posts.

Each is declared here as a :class:`~app.db.declaration.Rollup` over its source table, and
the writers of that table (the sync's page statement, the live write-back) keep it exact in
the statement that writes the rows (``app/store/upkeep.py``; statement triggers did until
migration 0022, which Citus cannot run on distributed tables). So it is never stale and
needs no refresh job. A statement that changes synced rows by hand bypasses it
(docs/data.md, "Changing synced rows by hand").
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import BigInteger, Date, Numeric, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base
from app.db.declaration import ROLLUP, Rollup
from app.db.tenancy import per_account

# A post counted as visible: neither archived nor private-archived.
_VISIBLE = "(NOT coalesce(r.is_archived, false) AND NOT coalesce(r.is_private_archived, false))"


def _media(kind: str) -> str:
    """Media items of ``kind`` of a visible post (a ``media`` that is not an array: none)."""
    return (f"CASE WHEN {_VISIBLE} AND jsonb_typeof(r.payload->'media') = 'array' THEN "
            f"jsonb_array_length(jsonb_path_query_array(r.payload->'media', "
            f"'$[*] ? (@.type == \"{kind}\")')) ELSE 0 END")


class EarningsDaily(Base):
    __tablename__ = "earnings_daily"
    __table_args__ = {"info": {**per_account(), ROLLUP: Rollup(
        source="earnings",
        group={"account_id": "r.account_id", "day": "(r.created_at AT TIME ZONE 'UTC')::date",
               "type": "r.type", "tips_source": "coalesce(r.tips_source, '')"},
        sums={"rows": "1", "net": "coalesce(r.net, 0)", "gross": "coalesce(r.amount, 0)"},
    )}}

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
    __table_args__ = {"info": {**per_account(), ROLLUP: Rollup(
        source="posts",
        group={"account_id": "r.account_id"},
        sums={"posts": f"{_VISIBLE}::int",
              "archived": "coalesce(r.is_archived, false)::int",
              "private_archived": "coalesce(r.is_private_archived, false)::int",
              "photos": _media("photo"), "videos": _media("video"), "audios": _media("audio")},
    )}}

    account_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    # Visible posts: neither archived nor private-archived.
    posts: Mapped[int] = mapped_column(BigInteger)
    archived: Mapped[int] = mapped_column(BigInteger)
    private_archived: Mapped[int] = mapped_column(BigInteger)
    # Media items of the visible posts, by type.
    photos: Mapped[int] = mapped_column(BigInteger)
    videos: Mapped[int] = mapped_column(BigInteger)
    audios: Mapped[int] = mapped_column(BigInteger)
