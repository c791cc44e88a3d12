"""Chart arithmetic shared by the earnings and campaigns charts: buckets and deltas."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from sandbox.core.timefmt import DAY, day_start, month_start, next_month_start

DAILY_MAX_DAYS = 90  # windows up to this many days get daily buckets, longer ones monthly


def buckets(lo: int, hi: int, daily: bool) -> list[tuple[int, int, int]]:
    """(label, first second, last second) of each bucket covering [lo, hi].

    A bucket's label is the start of its day or month; its range is clipped to the window.
    """
    out = []
    cursor = day_start(lo) if daily else month_start(lo)
    while cursor <= hi:
        following = cursor + DAY if daily else next_month_start(cursor)
        out.append((cursor, max(lo, cursor), min(hi, following - 1)))
        cursor = following
    return out


def is_daily(lo: int, hi: int) -> bool:
    return (hi - lo + 1) <= DAILY_MAX_DAYS * DAY


def delta(current: int, previous: int, places: int = 2) -> float | int:
    """Percent change of ``current`` against ``previous``, rounded half away from zero.

    previous == 0: 0 when current is 0 too, else 100. ``places=0`` gives an integer.
    """
    if previous == 0:
        value = Decimal(0 if current == 0 else 100)
    else:
        value = Decimal(current - previous) * 100 / Decimal(previous)
    quantum = Decimal(1).scaleb(-places)
    rounded = value.quantize(quantum, rounding=ROUND_HALF_UP)
    return int(rounded) if places == 0 else float(rounded)
