"""How a setting's text becomes its value, and the rules its value keeps: the parsers and
checks ``app.settings`` declares its fields with.

Each parser takes the variable's raw text and returns the value or raises ``ValueError``
with a message that never quotes a secret. Each check takes the parsed value and returns
None, or what the value must be (the message names no value either).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

from app.crypto.keys import secret_key_list

PREFIX = "RELAY_"


class SettingsError(ValueError):
    """Raised at start-up when one or more settings are invalid."""


def env_name(field_name: str) -> str:
    return PREFIX + field_name.upper()


def field_problems(cls: type, values: object) -> Iterator[str]:
    """What ``values`` breaks of the rules (``check``) the fields of ``cls`` declare."""
    for f in dataclasses.fields(cls):
        check = f.metadata["check"]
        problem = check(getattr(values, f.name)) if check is not None else None
        if problem is not None:
            yield f"{env_name(f.name)} {problem}"


def read_env(cls: type, source: Mapping[str, str], between: Callable[[Any], Iterator[str]]) -> dict[str, Any]:
    """The values of the ``RELAY_*`` variables ``source`` sets, parsed by their fields'
    parsers; every problem at once in one ``SettingsError``: values that do not parse, and
    then the rules (each field's, and ``between`` fields) over what did, the rest at their
    defaults, so one run names every bad variable."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for f in dataclasses.fields(cls):
        name = env_name(f.name)
        if name not in source:
            continue
        try:
            values[f.name] = f.metadata["parse"](source[name])
        except ValueError as exc:
            shown = "<hidden>" if f.metadata["secret"] else repr(source[name])
            problems.append(f"{name}={shown}: {exc}")
    if problems:
        checked = SimpleNamespace(**{**{f.name: f.default for f in dataclasses.fields(cls)}, **values})
        raise SettingsError(problems_message([*problems, *field_problems(cls, checked), *between(checked)]))
    return values


def problems_message(problems: list[str]) -> str:
    """Every problem on a line of its own, under one heading."""
    count = f"{len(problems)} problems" if len(problems) > 1 else "a problem"
    return f"{count} with the settings (RELAY_* variables):\n" + "\n".join(f"  {p}" for p in problems)


def boolean(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError("must be true or false (or 1/0, yes/no, on/off)")


def boolean_or_auto(raw: str) -> bool | None:
    """A boolean, or None for ``auto`` (or an empty value): the program decides."""
    if raw.strip().lower() in {"", "auto"}:
        return None
    try:
        return boolean(raw)
    except ValueError:
        raise ValueError("must be true, false or auto") from None


def integer(raw: str) -> int:
    """A whole number (``int``'s own message quotes Python: a setting's says what it wants)."""
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError("must be a whole number") from None


def number(raw: str) -> float:
    try:
        return float(raw.strip())
    except ValueError:
        raise ValueError("must be a number (e.g. 2 or 0.5)") from None


#: The plain-worded parser used for a field declared with a Python type as its parser.
PLAIN_PARSERS: dict[object, Callable[[str], Any]] = {int: integer, float: number}


def optional_str(raw: str) -> str | None:
    return raw.strip() or None


_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(raw: str) -> int:
    """``90``, ``90s``, ``5m``, ``2h`` or ``22d`` as whole seconds."""
    text = raw.strip().lower()
    unit = _DURATION_UNITS.get(text[-1:], None)
    digits = text[:-1] if unit else text
    if not digits.isdigit():
        raise ValueError(f"{raw.strip()!r} is not a duration (e.g. 90s, 5m, 2h, 22d)")
    return int(digits) * (unit or 1)


def parse_durations(raw: str) -> dict[str, int]:
    """``earnings=5m,posts=10m`` as ``{"earnings": 300, "posts": 600}``."""
    result: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{item!r} is not resource=duration (e.g. earnings=30s)")
        result[name.strip()] = parse_duration(value)
    return result


def durations_text(raw: str) -> str:
    parse_durations(raw)  # validate; the field keeps the text (settings stay hashable)
    return raw.strip()


def secret_keys_text(raw: str) -> str:
    # Never raises: from_env would quote the raw value in its message. Each key is checked
    # in Settings._problems, by position.
    return ",".join(secret_key_list(raw))


# --- rules a parsed value must keep (a field's ``check``: None when it holds, else what it must be)

_LOG_LEVELS = frozenset({"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"})
#: Days of the longest default date window (two calendar years with a leap day, the rest of
#: today, an exclusive end's second): the floor of the window settings.
DEFAULT_WINDOW_DAYS = 732


def positive(value: float) -> str | None:
    return None if value > 0 else "must be greater than 0"


def non_negative(value: float) -> str | None:
    return None if value >= 0 else "must not be negative"


def fraction(value: float) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must be between 0 and 1"


def port(value: int) -> str | None:
    return None if 0 < value < 65536 else "must be between 1 and 65535"


def port_or_off(value: int) -> str | None:
    return None if 0 <= value < 65536 else "must be between 0 (off) and 65535"


def window_days(value: int) -> str | None:
    return None if value >= DEFAULT_WINDOW_DAYS else (
        f"must be at least {DEFAULT_WINDOW_DAYS} (the default two-year window)")


def postgresql_url(value: str | None) -> str | None:
    ok = value is None or urlsplit(value).scheme in {"postgresql", "postgres", "postgresql+psycopg"}
    return None if ok else "must be a postgresql:// URL"


def http_url(value: str) -> str | None:
    return None if urlsplit(value).scheme in {"http", "https"} else "must be an http:// or https:// URL"


def durations(value: str) -> str | None:
    try:
        parse_durations(value)
    except ValueError as exc:
        return f"must be resource=duration pairs: {exc}"
    return None


def log_level(value: str | None) -> str | None:
    ok = value is None or value.upper() in _LOG_LEVELS
    return None if ok else "must be DEBUG, INFO, WARNING, ERROR or CRITICAL"


def one_of(*allowed: str) -> Callable[[str], str | None]:
    words = ", ".join(allowed[:-1]) + f" or {allowed[-1]}"

    def check(value: str) -> str | None:
        return None if value in allowed else f"must be {words}"

    return check
