"""Offset paging pinned by a snapshot marker: the one helper of chargebacks and payout requests.

The first page fixes a pin (``marker``, unix seconds) and every page holds the rows with
``start <= created_at <= min(end, pin)``, newest first, ``offset`` rows skipped. Rows that
arrive later are filed after the pin, so they cannot push rows from one page onto the next.

From the store the pin of a first page is the end of what the store holds completely
(``coverage_end``, at most now), not now: a sync between two page requests only adds rows
after the coverage end -- after the pin -- so a later page never shifts. (The upstream pins
now, because it has every row up to now.)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from psycopg import AsyncConnection, sql

from app.params import upstream_timestamp
from app.store.source import Coverage


def _from_unix(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


@dataclass(frozen=True, slots=True)
class SnapshotQuery:
    start: datetime
    end: datetime
    offset: int
    limit: int
    marker: int | None = None  # the pin, as the caller passed it back

    def pin(self, now: datetime, coverage: Coverage | None = None) -> int:
        if self.marker is not None:
            return self.marker
        held = now if coverage is None or coverage.end is None else min(now, coverage.end)
        return int(held.timestamp())

    def remaining_end(self, now: datetime) -> datetime:
        """The newest moment any page of this walk can hold (for the coverage check)."""
        upper = min(self.end, now)
        return upper if self.marker is None else min(upper, _from_unix(self.marker))

    def upstream_params(self, *, with_limit: bool = True) -> dict[str, Any]:
        params = {
            "start_date": upstream_timestamp(self.start),
            "end_date": upstream_timestamp(self.end),
            "offset": self.offset,
            "marker": self.marker,
        }
        if with_limit:
            params["limit"] = self.limit
        return params


# The window ``start <= created_at <= upper`` is a contiguous run of the account's rows in
# (created_at, id) order, so of its ordinals (``ord``: dense per account in that order, kept
# by triggers, migration 0010). The page at ``offset`` is the ``limit + 1`` ordinals below
# the newest row at or before ``upper`` (one index probe), minus ``offset``; rows older than
# ``start`` end the window. No row is skipped over, so any offset costs what offset 0 costs
# (``OFFSET n`` would walk n index entries: issue 10).
_PAGE_SQL = """
SELECT payload::text FROM {table}
WHERE account_id = %(account_id)s AND created_at >= %(start)s
  AND ord <= (SELECT ord FROM newest) - %(offset)s
  AND ord > (SELECT ord FROM newest) - %(offset)s - %(rows)s
ORDER BY ord DESC
"""
_NEWEST_SQL = """
WITH newest AS (
    SELECT ord FROM {table}
    WHERE account_id = %(account_id)s AND created_at <= %(upper)s
    ORDER BY created_at DESC, id DESC LIMIT 1
)"""


async def snapshot_page(
    conn: AsyncConnection,
    table: str,
    account_id: int,
    query: SnapshotQuery,
    *,
    now: datetime,
    coverage: Coverage,
) -> dict[str, Any]:
    """One page as the upstream shapes it: ``{"list", "marker", "hasMore"}``."""
    pin = query.pin(now, coverage)
    upper = min(query.end, now, _from_unix(pin))
    statement = sql.SQL(_NEWEST_SQL + _PAGE_SQL).format(table=sql.Identifier(table))
    params = {"account_id": account_id, "start": query.start, "upper": upper,
              "offset": query.offset, "rows": query.limit + 1}
    cur = await conn.execute(statement, params)
    found = [row[0] for row in await cur.fetchall()]
    return {
        "list": [msgspec.Raw(payload) for payload in found[: query.limit]],
        "marker": pin,
        "hasMore": len(found) > query.limit,
    }


def snapshot_next(body: dict, query: SnapshotQuery, *, with_limit: bool = True) -> dict[str, object] | None:
    """The next page's parameters: the same pin, the offset moved past this page's rows.

    Advancing by the rows received (not by ``limit``) cannot skip a row.
    """
    rows = len(body.get("list") or ())
    if not body.get("hasMore") or rows == 0:
        return None
    following: dict[str, object] = {
        "start_date": upstream_timestamp(query.start),
        "offset": query.offset + rows,
        "marker": body["marker"],
    }
    if with_limit:
        following["limit"] = query.limit
    return following
