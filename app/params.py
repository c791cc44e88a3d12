"""Query parameters shared by many routes: timestamps and the default date window.

The spec lets every date parameter be ``YYYY-MM-DD HH:MM:SS`` or ISO 8601 (UTC), with a
``T`` separator normalised to a space, and gives most windows the same defaults: two years
before now, and the end of today, UTC. This module is the one place that knows those rules,
so every route (live or store-served) parses dates the same way:

- ``parse_timestamp(name, raw)``: one value -> an aware UTC ``datetime`` (400 naming
  ``name`` when it cannot be read);
- ``DateWindow``: a (start, end) pair with the spec's defaults, made by the
  ``date_window`` dependency, which declares ``start_date`` and ``end_date`` once for
  the OpenAPI schema of every route that uses it;
- ``upstream_timestamp(dt)``: the normalised ``YYYY-MM-DD HH:MM:SS`` form sent upstream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from datetime import UTC, datetime, time, timedelta

from litestar.di import Provide
from litestar.exceptions import ValidationException
from litestar.params import QueryParameter

#: What a date parameter accepts, said the same way in every 400 and in the OpenAPI schema.
TIMESTAMP_RULE = "must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z)"

#: The default window reaches back this many calendar years.
DEFAULT_YEARS_BACK = 2

_BARE_DATE_LENGTH = len("YYYY-MM-DD")


def bad_parameter(name: str, rule: str, source: str = "query") -> ValidationException:
    """The 400 for a parameter that breaks a rule the signature cannot express.

    The same exception, with the same ``extra`` shape, that Litestar raises for a failed
    signature check (bounds, enumerations), so the one error handler renders both alike
    and names the parameter.
    """
    return ValidationException(
        detail=f"{name}: {rule}", extra=[{"key": name, "message": rule, "source": source}]
    )


def utc_now() -> datetime:
    return datetime.now(UTC)


def years_before(moment: datetime, years: int) -> datetime:
    """The same calendar moment ``years`` earlier (29 February becomes the 28th).

    "Two years ago" on 2026-01-01 is 2024-01-01, not 730 days earlier (2024-01-02).
    """
    try:
        return moment.replace(year=moment.year - years)
    except ValueError:  # 29 February in a year that has none
        return moment.replace(year=moment.year - years, day=28)


def end_of_day(moment: datetime) -> datetime:
    """The last whole second of ``moment``'s UTC day (the spec's "end of today")."""
    return datetime.combine(moment.astimezone(UTC).date(), time(23, 59, 59), tzinfo=UTC)


def parse_timestamp(name: str, raw: str, *, end: bool = False) -> datetime:
    """Read one date parameter as an aware UTC datetime, to the second.

    Accepts ``YYYY-MM-DD HH:MM:SS``, ISO 8601 with ``T`` (``Z``, an offset or none; none
    means UTC) and a bare ``YYYY-MM-DD``, which means the day's first second, or its last
    when ``end`` is set (so ``end_date=2024-05-31`` includes the whole of the 31st).
    """
    text = raw.strip()
    try:
        if len(text) == _BARE_DATE_LENGTH:
            day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
            return end_of_day(day) if end else day
        # fromisoformat takes the space separator and "Z" (Python 3.11+): the T is normalised
        # by parsing both forms into the same value.
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise bad_parameter(name, TIMESTAMP_RULE) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def upstream_timestamp(moment: datetime) -> str:
    """The one form we send upstream: ``YYYY-MM-DD HH:MM:SS`` in UTC (``T`` normalised)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


@dataclass(frozen=True, slots=True)
class DateWindow:
    """A closed interval of UTC moments, to the second."""

    start: datetime
    end: datetime

    @classmethod
    def parse(
        cls,
        start_raw: str | None,
        end_raw: str | None,
        *,
        now: datetime,
        start_name: str = "start_date",
        end_name: str = "end_date",
        end_exclusive: bool = False,
    ) -> DateWindow:
        """Both ends, defaulted as the spec says (two years ago; end of today, UTC).

        ``end_exclusive``: for a window whose end is an exclusive cursor (direct messages),
        "the end of a day" (a bare date, or today by default) is the next day's first
        second, so the day's last second is still inside; a full timestamp stays as given.
        """
        start = (
            parse_timestamp(start_name, start_raw)
            if start_raw
            else years_before(now, DEFAULT_YEARS_BACK)
        )
        end = parse_timestamp(end_name, end_raw, end=True) if end_raw else end_of_day(now)
        if end_exclusive and (not end_raw or len(end_raw.strip()) == _BARE_DATE_LENGTH):
            end += timedelta(seconds=1)
        if end < start:
            raise bad_parameter(end_name, f"must not be before {start_name}")
        return cls(start.replace(microsecond=0), end)

    def upstream(self) -> dict[str, str]:
        """Both ends in the upstream's form, keyed by our parameter names."""
        return {
            "start_date": upstream_timestamp(self.start),
            "end_date": upstream_timestamp(self.end),
        }


_START_DOC = "Earliest moment (UTC). " + TIMESTAMP_RULE + ". Default: two years ago."
_END_DOC = "Latest moment (UTC). " + TIMESTAMP_RULE + ". Default: the end of today."


def provide_date_window(*, end_exclusive: bool = False) -> Provide:
    """A Litestar dependency that declares ``start_date``/``end_date`` and returns a DateWindow.

    Declared once here, so each route that takes the window documents and validates it the
    same way: ``dependencies={"window": provide_date_window()}`` and a
    ``window: NamedDependency[DateWindow]`` handler parameter. "Now" is ``utc_now()``,
    looked up per request so tests can pin it.
    ``end_exclusive``: see ``DateWindow.parse``.
    """

    def date_window(
        start_date: Annotated[str | None, QueryParameter(description=_START_DOC)] = None,
        end_date: Annotated[str | None, QueryParameter(description=_END_DOC)] = None,
    ) -> DateWindow:
        return DateWindow.parse(
            start_date or None, end_date or None, now=utc_now(), end_exclusive=end_exclusive
        )

    return Provide(date_window, sync_to_thread=False)


# --- paging parameters ------------------------------------------------------------------
# Page sizes differ per route (the spec's Limits table), so each route declares its own
# ``limit`` with these bounds; the default stays in the handler signature, next to it.

Limit50 = Annotated[int, QueryParameter(ge=1, le=50, description="Page size, 1 to 50.")]
Limit100 = Annotated[int, QueryParameter(ge=1, le=100, description="Page size, 1 to 100.")]
Limit200 = Annotated[int, QueryParameter(ge=1, le=200, description="Page size, 1 to 200.")]
Offset = Annotated[int, QueryParameter(ge=0, description="Rows to skip (offset paging).")]

#: The spec's ``query`` (free-text search). Litestar reserves the handler argument name
#: ``query`` for the whole query string, so handlers take it as ``search: Search = None``.
Search = Annotated[
    str | None, QueryParameter(name="query", description="Free-text search (see the route).")
]
