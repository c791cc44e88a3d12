"""Query-parameter helpers shared by resource routes: time windows, booleans, enums.

Each raises :func:`sandbox.core.errors.bad_request` naming the parameter and its rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import overload

from sandbox.core.errors import bad_request
from sandbox.core.timefmt import DAY, TimeFormatError, parse_time

TWO_YEARS = 730 * DAY
TIME_RULE = "must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601"


def time_param(name: str, raw: str | None, default: int, *, end: bool = False) -> int:
    if raw is None or raw == "":
        return default
    try:
        return parse_time(raw, end_of_day=end)
    except TimeFormatError:
        raise bad_request(name, TIME_RULE) from None


def window(
    start_raw: str | None,
    end_raw: str | None,
    now: int,
    *,
    start_name: str = "start_date",
    end_name: str = "end_date",
) -> tuple[int, int]:
    """(lo, hi), both inclusive unix seconds. Defaults: two years before now, end of today.

    Rows later than ``now`` never exist, so callers clamp ``hi`` to ``now`` where needed.
    """
    lo = time_param(start_name, start_raw, now - TWO_YEARS)
    hi = time_param(end_name, end_raw, now - now % DAY + DAY - 1, end=True)
    if hi < lo:
        raise bad_request(end_name, f"must not be before {start_name}")
    return lo, hi


def bool_param(name: str, raw: str | None, default: bool | None = None) -> bool | None:
    if raw is None or raw == "":
        return default
    lowered = raw.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise bad_request(name, "must be true or false")


@overload
def enum_param(name: str, raw: str | None, allowed: Iterable[str], default: str) -> str: ...


@overload
def enum_param(name: str, raw: str | None, allowed: Iterable[str], default: None = None) -> str | None: ...


def enum_param(name: str, raw: str | None, allowed: Iterable[str], default: str | None = None) -> str | None:
    if raw is None or raw == "":
        return default
    allowed = tuple(allowed)
    if raw not in allowed:
        raise bad_request(name, "must be one of " + ", ".join(allowed))
    return raw


def int_param(name: str, raw: str | None, default: int, low: int | None = None, high: int | None = None) -> int:
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad_request(name, "must be an integer") from None
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
        raise bad_request(name, f"must be in {bounds}")
    return value
