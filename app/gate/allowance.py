"""An organization's allowance: admissions the gate statement reserved for this process.

The statement counts an allowance's admissions in both rate windows and takes their
credits off the balance when it reserves them (``extra`` in ``app.gate.statement``), so the
process admits them on its own, one per request, with no database work: the request is
counted, and debited, exactly as if the statement had admitted it at that moment.

An allowance holds for one minute window (the database's clock) and for at most
``LEASE_SECONDS``; what is left of it when it ends goes back to the organization row
(``Unused``, written by ``app.gate.ledger``), so the counters and the balance come back to
what the ledger rows say. Until it is surely back (``hold_seconds``), a request that does
not fit is deferred, not refused, so exactly min(requests, room) pass across processes. How
much is reserved follows the organization's recent rate in this process (``wish``): about
``TARGET_SECONDS`` of its requests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

#: Longest an allowance is used before what is left of it goes back.
LEASE_SECONDS = 1.0
#: An allowance is sized to about this much of the organization's recent traffic.
TARGET_SECONDS = 0.25
#: The most admissions one allowance reserves.
MAX_EXTRA = 10_000
#: An allowance ends this long before its minute does (on the estimate of the database's
#: clock), so no request it admits is counted in a window the database has already left.
MINUTE_MARGIN = 0.05
#: No allowance is asked for when it would serve less than this before its minute ends: it
#: would end at once and its whole reservation go back, a write every request then waits for.
MIN_LIFE = 0.1

#: The ledger writer's interval by default (``RELAY_LEDGER_INTERVAL``'s default).
LEDGER_INTERVAL = 0.025

#: How long after its lease ends an allowance's rest is surely back on the organization
#: row, beyond the ledger writer's interval (the writer's round trip, a late flush).
RETURN_MARGIN = 0.5

MINUTE = timedelta(minutes=1)


def minute_ending(db_now: float) -> bool:
    """Whether an allowance reserved at ``db_now`` (unix seconds, the database's clock)
    would serve less than ``MIN_LIFE`` before its minute ends."""
    return 60 - db_now % 60 < MINUTE_MARGIN + MIN_LIFE


def hold_seconds(ledger_interval: float) -> float:
    """Seconds from an allowance's reservation until what is left of it is surely back: its
    lease, then the ledger writer's next write (every ``ledger_interval``). Until then the
    gate statement defers a request that does not fit instead of refusing it."""
    return LEASE_SECONDS + ledger_interval + RETURN_MARGIN


@dataclass(frozen=True, slots=True)
class Unused:
    """What goes back to an organization's row: ``admissions`` from each window they were
    counted in (if that window is still the current one; ``day_start`` None: they were not
    counted in the day) and ``credits`` to the balance. What is left of an ended allowance
    (one credit per admission), or a counted request that is charged nothing after all
    (``app.gate.state``: a 5xx, a request its client cut)."""

    organization_id: int
    minute_start: datetime
    day_start: datetime | None
    admissions: int
    credits: int


def request_back(organization_id: int, at: float, *, credits: int, day: bool = True) -> Unused:
    """One counted request's admission back to the windows it was counted in at ``at`` (unix
    seconds, the database's clock: its ledger row's time; ``day`` False: it was counted in the
    minute only), and ``credits`` back to the balance."""
    minute = datetime.fromtimestamp(at // 60 * 60, UTC)
    return Unused(organization_id, minute, datetime.fromtimestamp(at // 86400 * 86400, UTC) if day else None, 1, credits)


class Allowance:
    """Reserved admissions of one organization; ``take`` hands them out one by one."""

    __slots__ = (
        "organization_id", "limit_minute", "limit_day", "minute_used", "day_used", "extra",
        "taken", "minute_start", "day_start", "_db_epoch", "_mono", "expires", "refilling",
    )

    def __init__(
        self, *, organization_id: int, limit_minute: int, limit_day: int, minute_used: int, day_used: int,
        extra: int, minute_start: datetime, day_start: datetime, db_now: float, mono: float,
    ) -> None:
        self.organization_id = organization_id
        self.limit_minute = limit_minute
        self.limit_day = limit_day
        #: The counters before the first reserved admission (the batch's own requests included).
        self.minute_used = minute_used
        self.day_used = day_used
        self.extra = extra
        self.taken = 0
        self.minute_start = minute_start
        self.day_start = day_start
        # The database's clock (unix seconds) at ``mono`` (this process's monotonic clock).
        self._db_epoch = db_now
        self._mono = mono
        left_in_minute = (minute_start + MINUTE).timestamp() - self._db_epoch - MINUTE_MARGIN
        self.expires = mono + min(LEASE_SECONDS, left_in_minute)
        #: The next allowance has been asked for while this one still serves.
        self.refilling = False

    @property
    def left(self) -> int:
        return self.extra - self.taken

    def spent(self, mono: float) -> bool:
        return self.taken >= self.extra or mono >= self.expires

    def running_low(self) -> bool:
        """A quarter or less is left and nobody has asked for the next one yet (the
        gatekeeper then does, in the background, while this one keeps serving)."""
        return not self.refilling and (self.extra - self.taken) * 4 <= self.extra

    def take(self, mono: float) -> bool:
        """One admission (False when none is left or the allowance has ended); ``taken``
        numbers it after the allowance's counters."""
        if self.taken >= self.extra or mono >= self.expires:
            return False
        self.taken += 1
        return True

    def follow(self, ended: Allowance) -> None:
        """Serve after ``ended``, whose untaken admissions go back to the organization. This
        allowance was reserved while ``ended`` still served, so its counters hold them as
        used: take them out, or the headers would jump by them and later count them twice."""
        if ended.day_start == self.day_start:
            self.day_used = max(self.day_used - ended.left, 0)
        if ended.minute_start == self.minute_start:
            self.minute_used = max(self.minute_used - ended.left, 0)

    def clock(self, mono: float) -> float:
        """The database's clock (unix seconds) at ``mono``."""
        return self._db_epoch + (mono - self._mono)

    def unused(self) -> Unused | None:
        """What is left, to give back (None when nothing is); the allowance is spent after it."""
        left = self.extra - self.taken
        if left <= 0:
            return None
        self.taken = self.extra
        return Unused(self.organization_id, self.minute_start, self.day_start, left, left)


class Demand:
    """How many requests of one organization this process admitted since a moment: the rate
    an allowance is sized by."""

    __slots__ = ("since", "count")

    def __init__(self, since: float) -> None:
        self.since = since
        self.count = 0

    def wish(self, mono: float) -> int:
        """Admissions for about ``TARGET_SECONDS`` at the rate seen so far; then counting
        starts again. 0 below two requests per ``LEASE_SECONDS``: an allowance that
        would mostly go back unused costs a write and saves nothing."""
        rate = self.count / max(mono - self.since, 0.001)
        self.since, self.count = mono, 0
        if rate * LEASE_SECONDS < 2:
            return 0
        return min(math.ceil(rate * TARGET_SECONDS), MAX_EXTRA)
