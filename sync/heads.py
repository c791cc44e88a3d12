"""Head checks: one cheap upstream request that says whether a resource has new rows.

Every head interval the engine asks each resource's head check, instead of running the
partitioned incremental passes, whether anything appeared after the coverage end ``since``
(unix seconds; every row up to it is stored). When nothing did, the store still holds every
row up to the upstream's ``now`` and the engine moves the coverage end there: the same
promise an empty incremental pass makes, for one request instead of one per partition (and
no lookback re-read, which has its own slower cadence). When something did, the engine runs
the partitioned passes over ``[since, now]``.

A check is a strategy of the resource's description, like its cursor:

- ``request(since, now)``: the query of the one request (no partition filter), or None
  when the answer follows from the calendar alone (no request);
- ``news(body, rows, since, now, marks)``: whether something new appeared, and the marks to
  remember for the next check (``marks`` are the ones remembered by the last check; most
  checks need none).

A check may see news that is not there (a false alarm costs one pass of new rows); it must
never miss a row newer than ``since`` that the resource's passes would read.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from sync.cursors import Cursor, field_of, iso_seconds

DAY = 86400


class HeadCheck(Protocol):
    def request(self, since: int, now: int) -> dict | None:
        """Query parameters of the check's one request; None: no request is needed."""
        ...

    def news(self, body: Any, rows: list, since: int, now: int, marks: Any) -> tuple[bool, Any]:
        """(something new after ``since``, the marks to remember)."""
        ...


@dataclass(frozen=True, slots=True)
class NewestInWindow:
    """Endpoints with a time window (earnings, chargebacks, payout requests): the first
    page of ``(since, now]`` without partition filters, one row if the endpoint takes a
    limit. Any row there is news. When the upstream's clock has not moved past ``since``
    the check still asks (``[now, now]``, a row there is not news): an idle account keeps
    proving its credentials and the upstream's health once per head interval."""

    cursor: Cursor
    time_field: str = "createdAt"

    def request(self, since: int, now: int) -> dict | None:
        return self.cursor.request(min(since + 1, now), now, None, 1)

    def news(self, body: Any, rows: list, since: int, now: int, marks: Any) -> tuple[bool, Any]:
        return bool(rows) and iso_seconds(field_of(rows[0], self.time_field)) > since, None


@dataclass(frozen=True, slots=True)
class NewestFirstList:
    """Newest-first lists without a window (tracking links): the first row; news when it
    is newer than ``since``."""

    time_field: str = "createdAt"

    def request(self, since: int, now: int) -> dict | None:
        return {"limit": 1, "offset": 0}

    def news(self, body: Any, rows: list, since: int, now: int, marks: Any) -> tuple[bool, Any]:
        return bool(rows) and iso_seconds(field_of(rows[0], self.time_field)) > since, None


@dataclass(frozen=True, slots=True)
class PostsHead:
    """The posts feed's newest post, with the account's counters. The feed leaves archived
    posts out (they are partitions of their own), so a post published straight into an
    archive shows only in the counters: news is a feed post newer than ``since`` or any
    counter that differs from the last check's."""

    def request(self, since: int, now: int) -> dict | None:
        return {"order": "publish_date_desc", "limit": 1, "counters": True}

    def news(self, body: Any, rows: list, since: int, now: int, marks: Any) -> tuple[bool, Any]:
        counters = body.get("counters") if isinstance(body, dict) else None
        newer = bool(rows) and int(Decimal(field_of(rows[0], "postedAtPrecise"))) > since
        return newer or counters != marks, counters


@dataclass(frozen=True, slots=True)
class NewDay:
    """Rows keyed by day (a tracking link's daily stats): a new row can only appear when a
    new day starts, so no request is needed. The day's values keep changing until it ends;
    those are late changes, re-read on the lookback cadence."""

    def request(self, since: int, now: int) -> dict | None:
        return None

    def news(self, body: Any, rows: list, since: int, now: int, marks: Any) -> tuple[bool, Any]:
        return now - now % DAY > since, None
