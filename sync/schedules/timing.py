"""When a schedule is due, and which window a run covers.

Cron expressions are parsed by APScheduler's ``CronTrigger`` (five fields: minute, hour,
day of month, month, day of week) in the schedule's time zone. APScheduler 3 numbers the days
of the week from Monday while cron numbers them from Sunday, so a numbered day of the week
would silently run on the wrong day: it is refused, names (``mon-fri``) are asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

from app.setting_values import parse_duration

#: ``--since`` dates, as ``relay sync backfill --since`` takes them (UTC).
DATE_FORMATS = ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S")
EPOCH = datetime.fromtimestamp(0, UTC)


class ScheduleError(ValueError):
    """A schedule's cron, time zone or since is not valid (the message names which and why)."""


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(f"--tz {name!r} is not a time zone (e.g. UTC, Europe/Berlin)") from None


def trigger(cron: str, tz: str) -> CronTrigger:
    fields = cron.split()
    if len(fields) != 5:
        raise ScheduleError(
            f"--cron {cron!r} needs 5 fields (minute hour day-of-month month day-of-week), got {len(fields)}"
        )
    if re.search(r"\d", re.sub(r"/\d+", "", fields[4])):
        raise ScheduleError(
            f"--cron {cron!r}: name the days of the week (mon, tue, ... sun; e.g. mon-fri), "
            "numbers are ambiguous (cron counts from Sunday, APScheduler from Monday)"
        )
    try:
        return CronTrigger.from_crontab(cron, timezone=zone(tz))
    except ValueError as exc:
        raise ScheduleError(f"--cron {cron!r}: {exc}") from None


def next_due(cron: str, tz: str, now: datetime) -> datetime:
    """The first due time strictly after ``now`` (UTC). Missed times are never replayed: a
    schedule that was down for hours runs once for them, then at its next time after now."""
    fire = trigger(cron, tz).get_next_fire_time(None, now + timedelta(microseconds=1))
    if fire is None:
        raise ScheduleError(f"--cron {cron!r} is never due again")
    return fire.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Since:
    """``--since``: a duration back from each run's due time, or a fixed date."""

    seconds: int | None = None
    date: datetime | None = None

    def start(self, due: datetime) -> datetime:
        if self.date is not None:
            return self.date
        return due - timedelta(seconds=self.seconds or 0)


def parse_since(text: str | None) -> Since | None:
    if text is None:
        return None
    for fmt in DATE_FORMATS:
        try:
            return Since(date=datetime.strptime(text, fmt).replace(tzinfo=UTC))
        except ValueError:
            continue
    try:
        seconds = parse_duration(text)
    except ValueError:
        raise ScheduleError(
            f"--since {text!r} is neither a duration (90s, 5m, 2h, 7d) nor a date (YYYY-MM-DD)"
        ) from None
    if seconds <= 0:
        raise ScheduleError(f"--since {text!r} must be longer than 0")
    return Since(seconds=seconds)
