"""Timestamp formatting and parsing in the upstream's formats.

Upstream timestamps are ``YYYY-MM-DDTHH:MM:SS+00:00`` (UTC); tracking-link scans use a ``Z``
suffix; daily series use ``YYYY-MM-DD``. Query values accept ``YYYY-MM-DD HH:MM:SS``,
ISO 8601 (``T`` separator, optional fraction, ``Z`` or ``+00:00``) or a bare ``YYYY-MM-DD``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

DAY = 86400


@lru_cache(maxsize=8192)
def _day_prefix(day_number: int) -> str:
    return (date(1970, 1, 1) + timedelta(days=day_number)).isoformat()


def iso(t: int) -> str:
    """Unix seconds -> ``YYYY-MM-DDTHH:MM:SS+00:00``. Cheap: the date part is cached per day."""
    day, rest = divmod(t, DAY)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{_day_prefix(day)}T{hours:02d}:{minutes:02d}:{seconds:02d}+00:00"


def iso_z(t: int) -> str:
    """Unix seconds -> ``YYYY-MM-DDTHH:MM:SSZ``."""
    return iso(t)[:-6] + "Z"


def day_str(t: int) -> str:
    """Unix seconds -> ``YYYY-MM-DD`` of its UTC day."""
    return _day_prefix(t // DAY)


def day_start(t: int) -> int:
    return t - t % DAY


def month_start(t: int) -> int:
    d = datetime.fromtimestamp(t, UTC)
    return int(datetime(d.year, d.month, 1, tzinfo=UTC).timestamp())


def next_month_start(t: int) -> int:
    d = datetime.fromtimestamp(month_start(t), UTC)
    year, month = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
    return int(datetime(year, month, 1, tzinfo=UTC).timestamp())


class TimeFormatError(ValueError):
    pass


def parse_time(raw: str, *, end_of_day: bool = False) -> int:
    """Parse a query timestamp to unix seconds (UTC).

    A bare date means its first second, or its last second when ``end_of_day`` (used for
    end bounds, so ``end_date=2026-01-31`` includes the whole day).
    """
    text = raw.strip()
    if len(text) == 10:
        try:
            d = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
        except ValueError as exc:
            raise TimeFormatError(str(exc)) from None
        return int(d.timestamp()) + (DAY - 1 if end_of_day else 0)
    text = text.replace(" ", "T", 1)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        d = datetime.fromisoformat(text)
    except ValueError as exc:
        raise TimeFormatError(str(exc)) from None
    if d.tzinfo is None:
        d = d.replace(tzinfo=UTC)
    return int(d.timestamp())
