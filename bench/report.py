"""The one Markdown table of a ``make bench`` run: rounds, pair-by-pair ratios, targets.

Pure: no processes, no database. Cases hand over :class:`Row` objects; this module
formats them and evaluates the targets.
"""

from __future__ import annotations

import operator
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Rounds:
    """The values of one measure, one per round."""

    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Iterable[float]) -> Rounds:
        values = tuple(values)
        if not values:
            raise ValueError("a measure needs at least one round")
        return cls(values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def spread(self, fmt: Callable[[float], str]) -> str:
        return f"{fmt(min(self.values))}–{fmt(max(self.values))}" if len(self.values) > 1 else ""


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> Rounds:
    """Ratios pair by pair: round i of one side over round i of the other (same minutes)."""
    if len(numerators) != len(denominators):
        raise ValueError("ratios pair rounds one to one")
    return Rounds.of(n / d for n, d in zip(numerators, denominators, strict=True))


def costs(gated: Sequence[float], open_: Sequence[float]) -> Rounds:
    """Throughput lost, pair by pair: 1 - gated/open."""
    return Rounds.of(1 - r for r in ratios(gated, open_).values)


_COMPARE = {">=": operator.ge, "<=": operator.le, "<": operator.lt, ">": operator.gt}


@dataclass(frozen=True)
class Target:
    """``median <op> limit``, e.g. Target(">=", 0.7)."""

    op: str
    limit: float
    percent: bool = False

    def met(self, value: float) -> bool:
        return _COMPARE[self.op](value, self.limit)

    def __str__(self) -> str:
        limit = f"{self.limit:.0%}" if self.percent else f"{self.limit:g}"
        return f"{self.op} {limit}"


def number(value: float) -> str:
    """Figures at a precision that shows what matters: 1,234 / 12.3 / 1.23 / 0.123."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def percent(value: float) -> str:
    return f"{value:.0%}"


@dataclass(frozen=True)
class Row:
    case: str
    measure: str
    rounds: Rounds | None = None
    unit: str = ""
    target: Target | None = None
    fmt: Callable[[float], str] = number
    note: str = ""  # shown instead of a value when there is none (e.g. "not seen within 420 s")
    failed: bool = False  # the case broke off with an error

    @property
    def verdict(self) -> str:
        if self.failed:
            return "**ERROR**"
        if self.target is None:
            return ""
        if self.rounds is None:
            return "**FAIL**"
        return "pass" if self.target.met(self.rounds.median) else "**FAIL**"

    def cells(self) -> list[str]:
        if self.rounds is None:
            value, spread = self.note or "n/a", ""
        else:
            value = f"{self.fmt(self.rounds.median)}{(' ' + self.unit) if self.unit else ''}"
            spread = self.rounds.spread(self.fmt)
            if self.note:
                value += f" ({self.note})"
        target = f"{self.target}{(' ' + self.unit) if self.unit and not self.target.percent else ''}" if self.target else ""
        return [self.case, self.measure, value, spread, target, self.verdict]


def table(rows: Sequence[Row]) -> str:
    lines = ["| case | measure | median | spread (min–max of rounds) | target | result |",
             "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def summary(rows: Sequence[Row]) -> str:
    judged = [row for row in rows if row.target is not None or row.failed]
    failed = [row for row in judged if row.verdict != "pass"]
    if not judged:
        return "No targets in the selected cases."
    if not failed:
        return f"All {len(judged)} targets met."
    names = "; ".join(f"{row.case} {row.measure}" for row in failed)
    return f"{len(judged) - len(failed)} of {len(judged)} targets met; not met: {names}."


def append_section(path: Path, heading: str, facts: Sequence[str], body: str) -> None:
    """Append one run (a heading, its facts as a list, the table) to ``path``."""
    lines = ["", f"## {heading}", "", *(f"- {fact}" for fact in facts), "", body, ""]
    with path.open("a", encoding="utf-8") as out:
        out.write("\n".join(lines))
