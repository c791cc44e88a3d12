"""Query and path parameters: their declarations, bounds and the date rules, in one place.

Every rule a parameter has is stated where the parameter is declared (``ge``/``le``,
``pattern``), so Litestar enforces it before any handler code runs and the OpenAPI schema
shows it. The bounds are what the values must fit into on their way: PostgreSQL's
``bigint`` for integers, the supported range of moments for dates and unix-second cursors
(with room for time-zone offsets, the exclusive end's extra second and the previous window
of equal length), ASCII digits only, no NUL in text (PostgreSQL refuses it).

- ``parse_timestamp(name, raw)``: one date value -> an aware UTC ``datetime`` (400 naming
  ``name`` when it cannot be read or lies outside the supported range);
- ``DateWindow``: a (start, end) pair with the spec's defaults, made by the
  ``provide_date_window`` dependency, which declares both date parameters once;
- ``upstream_timestamp(dt)``: the ``YYYY-MM-DD HH:MM:SS`` form sent upstream (four-digit year);
- ``whole_value(body)``: a ``pattern`` that must match the whole value (no trailing newline).

Every date window has a maximum length, per route: a setting named where the route declares
its window (``provide_date_window(FEED_WINDOW_MAX_DAYS)``); longer is a 400 naming the parameter.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Annotated, TypedDict

from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import ValidationException
from litestar.params import Parameter, ParameterKwarg, QueryParameter

from app.settings import Settings, env_name

# --- bounds ------------------------------------------------------------------------------

#: PostgreSQL's ``bigint``: the widest integer a column, a cursor or the upstream takes.
BIGINT_MAX = 2**63 - 1
#: ``schema_extra`` of a parameter bounded by ``le=BIGINT_MAX``: Litestar writes ``le`` into
#: the schema as a float (2^63, one past the bound); this keeps the exact integer.
BIGINT_SCHEMA = {"maximum": BIGINT_MAX}

#: The supported moments. The last day of year 9999 is left out so that an offset, the
#: exclusive end's extra second and a bare end date's last second never leave ``datetime``.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, 23, 59, 59, tzinfo=UTC)
RANGE_RULE = "must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59 UTC"
#: The supported range as unix seconds (cursors such as the earnings ``marker``).
UNIX_MAX = int(LATEST.timestamp())


def whole_value(body: str) -> str:
    """A ``pattern`` the whole value must match: ``^(?:body)$(?!\\n)``.

    Litestar checks a ``pattern`` with ``re.search``, where ``$`` also matches before a
    trailing newline (``label=archived%0A`` passed, then ``int()`` failed: a 500). ``(?!\\n)``
    refuses that newline. Not ``\\Z``: the OpenAPI schema shows these patterns, and JSON
    Schema patterns are ECMA-262 regexes, where ``\\Z`` is no anchor (``$`` is the end there).
    """
    return f"^(?:{body})$(?!\\n)"


#: What a date parameter accepts, said the same way in every 400 and in the OpenAPI schema.
TIMESTAMP_RULE = "must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z)"
#: The same as a pattern (ASCII digits, a four-digit year; seconds, fractions and an offset
#: optional; empty means absent). Litestar checks it with ``re.search``, ``parse_timestamp``
#: with ``fullmatch``.
TIMESTAMP_PATTERN = whole_value(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?)?"
)
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)

#: Free text: anything but NUL, which PostgreSQL cannot store or compare.
TEXT_PATTERN = whole_value(r"[^\u0000]*")
TEXT_RULE = "must not contain a NUL character"

#: A posts cursor (tailMarker): unix seconds with up to six decimals, so finite and in range.
TAIL_MARKER_PATTERN = whole_value(r"[0-9]{1,11}(\.[0-9]{1,6})?")
TAIL_MARKER_RULE = "must be unix seconds with up to six decimals (a tailMarker)"

#: A posts label: a numeric label id (ASCII digits, within bigint) or an archive bucket.
LABEL_PATTERN = whole_value(r"([0-9]{1,18}|archived|private_archived)?")
LABEL_RULE = "must be a numeric label id (up to 18 digits), archived or private_archived"

#: Litestar's message for a failed pattern -> our rule, so a 400 says the rule in words.
_PATTERN_RULES = {
    TIMESTAMP_PATTERN: TIMESTAMP_RULE,
    TEXT_PATTERN: TEXT_RULE,
    TAIL_MARKER_PATTERN: TAIL_MARKER_RULE,
    LABEL_PATTERN: LABEL_RULE,
}


def rule_pattern(pattern: str, rule: str) -> str:
    """``pattern``, registered so a 400 for it states ``rule`` in words (see ``pattern_rule``)."""
    _PATTERN_RULES[pattern] = rule
    return pattern


def pattern_rule(message: str) -> str:
    """The rule in words for Litestar's "Expected `str` matching regex '...'" message."""
    for pattern, rule in _PATTERN_RULES.items():
        if message == f"Expected `str` matching regex {pattern!r}":
            return rule
    return message


def bad_parameter(name: str, rule: str, source: str = "query") -> ValidationException:
    """The 400 for a parameter that breaks a rule the signature cannot express.

    The same exception, with the same ``extra`` shape, that Litestar raises for a failed
    signature check (bounds, enumerations), so the one error handler renders both alike
    and names the parameter.
    """
    return ValidationException(
        detail=f"{name}: {rule}", extra=[{"key": name, "message": rule, "source": source}]
    )


# --- dates ---------------------------------------------------------------------------------

#: The default window reaches back this many calendar years.
DEFAULT_YEARS_BACK = 2

_BARE_DATE_LENGTH = len("YYYY-MM-DD")
SECOND = timedelta(seconds=1)


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
    The result lies in [EARLIEST, LATEST], else 400 naming ``name``.
    """
    if not raw or not _TIMESTAMP.fullmatch(raw):
        raise bad_parameter(name, TIMESTAMP_RULE)
    try:
        if len(raw) == _BARE_DATE_LENGTH:
            moment = datetime.strptime(raw, "%Y-%m-%d").replace(tzinfo=UTC)
            moment = end_of_day(moment) if end else moment
        else:
            moment = datetime.fromisoformat(raw)
    except ValueError:  # a 13th month, a 25th hour, ...
        raise bad_parameter(name, TIMESTAMP_RULE) from None
    try:
        moment = moment.replace(tzinfo=moment.tzinfo or UTC).astimezone(UTC)
    except OverflowError:  # an offset that carries it before year 1 or after 9999
        raise bad_parameter(name, RANGE_RULE) from None
    if not EARLIEST <= moment <= LATEST:
        raise bad_parameter(name, RANGE_RULE)
    return moment.replace(microsecond=0)


@functools.lru_cache(maxsize=256)
def upstream_timestamp(moment: datetime) -> str:
    """The one form we send upstream: ``YYYY-MM-DD HH:MM:SS`` in UTC, the year zero-padded
    to four digits (``strftime('%Y')`` writes year 999 as ``999``)."""
    m = moment.astimezone(UTC)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d} {m.hour:02d}:{m.minute:02d}:{m.second:02d}"


def previous_window(start: datetime, end: datetime) -> tuple[datetime, datetime]:
    """The window of equal length just before [start, end] (a chart's ``delta`` baseline).

    Its start is clamped to EARLIEST: nothing is stored or served before it, and a long
    window's previous one would otherwise start before year 1.
    """
    length = end - start + SECOND
    return max(start - min(length, start - EARLIEST), EARLIEST), start - SECOND


@dataclass(frozen=True, slots=True)
class DateWindow:
    """A closed interval of UTC moments, to the second.

    ``open_start``/``open_end``: the end was not given and the window is unbounded there
    (EARLIEST/LATEST); such an end is not sent upstream.
    """

    start: datetime
    end: datetime
    open_start: bool = False
    open_end: bool = False

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
        unbounded: bool = False,
        defaults: bool = True,
        max_days: int | None = None,
    ) -> DateWindow:
        """Both ends, defaulted as the spec says (two years ago; end of today, UTC), or,
        with ``unbounded``, open where absent; at most ``max_days`` apart (``check_length``).
        The default window is not measured: no setting is below its length
        (``app.settings.DEFAULT_WINDOW_DAYS``).

        ``end_exclusive``: for a window whose end is an exclusive cursor (direct messages),
        "the end of a day" (a bare date, or today by default) is the next day's first
        second, so the day's last second is still inside; a full timestamp stays as given.
        """
        if defaults and not start_raw and not end_raw:
            return _default_window(now.replace(microsecond=0), end_exclusive, unbounded)
        if start_raw:
            start = parse_timestamp(start_name, start_raw)
        else:
            start = EARLIEST if unbounded else years_before(now, DEFAULT_YEARS_BACK)
        if end_raw:
            end = parse_timestamp(end_name, end_raw, end=True)
        else:
            end = LATEST if unbounded else end_of_day(now)
        if end_exclusive and (not end_raw or len(end_raw) == _BARE_DATE_LENGTH):
            end += SECOND
        if end < start:
            raise bad_parameter(end_name, f"must not be before {start_name}")
        window = cls(start.replace(microsecond=0), end, not start_raw and unbounded, not end_raw and unbounded)
        if max_days is not None:
            window.check_length(max_days, bool(end_raw), start_name, end_name)
        return window

    def check_length(self, max_days: int, end_given: bool, start_name: str, end_name: str) -> None:
        """400 when the window spans more than ``max_days`` days (``end - start``), naming the
        end when the caller gave it, else the start. An open window (an absent end of an
        unbounded window) is not measured: what it covers is bounded by the data."""
        if self.open_start or self.open_end or self.end - self.start <= timedelta(days=max_days):
            return
        rule = f"the window from {start_name} to {end_name} may span at most {max_days} days on this route"
        raise bad_parameter(end_name if end_given else start_name, rule)

    @property
    def previous(self) -> DateWindow:
        """The window of equal length just before this one (see ``previous_window``)."""
        return DateWindow(*previous_window(self.start, self.end))

    def upstream(self, start_name: str = "start_date", end_name: str = "end_date") -> dict[str, str | None]:
        """Both ends in the upstream's form (None, not sent, where the window is open)."""
        return {
            start_name: None if self.open_start else upstream_timestamp(self.start),
            end_name: None if self.open_end else upstream_timestamp(self.end),
        }


@functools.lru_cache(maxsize=16)
def _default_window(now: datetime, end_exclusive: bool, unbounded: bool) -> DateWindow:
    """The window of a request that names neither end: the same for every request of one
    second, so worked out once."""
    return DateWindow.parse(None, None, now=now, start_name="", end_name="", end_exclusive=end_exclusive,
                            unbounded=unbounded, defaults=False)


class _DateSchema(TypedDict):
    pattern: str
    max_length: int


_DATE_SCHEMA: _DateSchema = {"pattern": TIMESTAMP_PATTERN, "max_length": 40}

# --- window lengths: the settings that bound them, in days (docs/api-decisions.md) ----------

#: Paged feeds: a page costs the same whatever the window.
FEED_WINDOW_MAX_DAYS = "feed_window_max_days"
#: Aggregates bucketed by month past 90 days (a full-lifetime chart is a documented use).
CHART_WINDOW_MAX_DAYS = "chart_window_max_days"
#: Windows answered with one entry per day (the campaigns' daily series).
DAILY_WINDOW_MAX_DAYS = "daily_window_max_days"


def _length_doc(setting: str, start_name: str = "start_date", end_name: str = "end_date", when: str = "") -> str:
    """The window's maximum length in words, for a date parameter's description."""
    default = next(f.default for f in dataclasses.fields(Settings) if f.name == setting)
    return (f" From {start_name} to {end_name}{when}: at most {default:,} days on this route"
            f" (the default of the operator's {env_name(setting)}); longer is a 400.")


def timestamp(description: str) -> ParameterKwarg:
    """A single date parameter (outside a ``DateWindow``), with the accepted forms as its
    pattern; read it with ``parse_timestamp``."""
    return Parameter(description=f"{description} {TIMESTAMP_RULE}; {RANGE_RULE}.", **_DATE_SCHEMA)
_START_DOC = f"Earliest moment (UTC). {TIMESTAMP_RULE}; {RANGE_RULE}. Default: two years ago."
_END_DOC = f"Latest moment (UTC). {TIMESTAMP_RULE}; {RANGE_RULE}. Default: the end of today."
_OPEN_DOC = f"UTC. {TIMESTAMP_RULE}; {RANGE_RULE}. Absent: unbounded."


def provide_date_window(length_setting: str, *, end_exclusive: bool = False) -> Provide:
    """A Litestar dependency that declares ``start_date``/``end_date`` and returns a DateWindow.

    Declared once here, so each route that takes the window documents and validates it the
    same way: ``dependencies={"window": provide_date_window(FEED_WINDOW_MAX_DAYS)}`` and a
    ``window: NamedDependency[DateWindow]`` handler parameter. ``length_setting``: the
    setting that bounds the window's length on this route, in days. "Now" is ``utc_now()``, looked up per
    request so tests can pin it. ``end_exclusive``: see ``DateWindow.parse``.
    """

    def date_window(state: State, start_date: str | None = None, end_date: str | None = None) -> DateWindow:
        return DateWindow.parse(start_date, end_date, now=utc_now(), end_exclusive=end_exclusive,
                                max_days=getattr(state["settings"], length_setting))

    # Set here, not written in the signature: annotations are strings (``__future__``) that
    # could not name this call's ``length_setting``.
    length = _length_doc(length_setting)
    date_window.__annotations__ = {
        "state": State,
        "start_date": Annotated[str | None, QueryParameter(description=_START_DOC + length, **_DATE_SCHEMA)],
        "end_date": Annotated[str | None, QueryParameter(description=_END_DOC + length, **_DATE_SCHEMA)],
        "return": DateWindow,
    }
    return Provide(date_window, sync_to_thread=False)


_OPEN_LENGTH = _length_doc(DAILY_WINDOW_MAX_DAYS, "date_start", "date_end", " (when both are given)")


def _open_date_window(
    state: State,
    date_start: Annotated[str | None, QueryParameter(description=_OPEN_DOC + _OPEN_LENGTH, **_DATE_SCHEMA)] = None,
    date_end: Annotated[str | None, QueryParameter(description=_OPEN_DOC + _OPEN_LENGTH, **_DATE_SCHEMA)] = None,
) -> DateWindow:
    return DateWindow.parse(
        date_start, date_end, now=utc_now(), start_name="date_start", end_name="date_end", unbounded=True,
        max_days=getattr(state["settings"], DAILY_WINDOW_MAX_DAYS),
    )


#: ``date_start``/``date_end``, each unbounded when absent (tracking-link stats); when both
#: are given, at most RELAY_DAILY_WINDOW_MAX_DAYS apart.
provide_open_date_window = Provide(_open_date_window, sync_to_thread=False)


# --- integers, text and cursors -------------------------------------------------------------
# Page sizes differ per route (the spec's Limits table), so each route declares its own
# ``limit`` with these bounds; the default stays in the handler signature, next to it.

Limit50 = Annotated[int, QueryParameter(ge=1, le=50, description="Page size, 1 to 50.")]
Limit100 = Annotated[int, QueryParameter(ge=1, le=100, description="Page size, 1 to 100.")]
Limit200 = Annotated[int, QueryParameter(ge=1, le=200, description="Page size, 1 to 200.")]
Offset = Annotated[
    int, QueryParameter(ge=0, le=BIGINT_MAX, schema_extra=BIGINT_SCHEMA, description="Rows to skip (offset paging).")
]


def identifier(description: str) -> ParameterKwarg:
    """A positive id (path or query), within bigint."""
    return Parameter(ge=1, le=BIGINT_MAX, schema_extra=BIGINT_SCHEMA, description=description)


def unix_seconds(description: str) -> ParameterKwarg:
    """A unix-seconds cursor, within the supported range of moments.

    ``schema_extra`` repeats the lower bound: Litestar leaves a ``minimum`` of 0 out of the
    schema of an optional integer.
    """
    return Parameter(ge=0, le=UNIX_MAX, description=description, schema_extra={"minimum": 0})


def text(description: str, name: str | None = None) -> ParameterKwarg:
    """Free text (no NUL); ``name``: the query name when the handler argument differs."""
    return QueryParameter(name=name, pattern=TEXT_PATTERN, max_length=1000, description=description)


#: The path's ``{account_id}``: an upstream account id, within bigint.
AccountId = Annotated[int, identifier("The connected account (the upstream's numeric account id).")]

#: The spec's ``query`` (free-text search). Litestar reserves the handler argument name
#: ``query`` for the whole query string, so handlers take it as ``search: Search = None``.
Search = Annotated[str | None, text("Free-text search (see the route).", name="query")]
