"""The "Latest results" table at the top of docs/benchmarks.md, derived from the runs below it.

Each ``make bench`` run is appended as a section (``bench.report.append_section``); the
table then shows, for every case, the rows of the newest full run that ran it, with that
run's date and commit. It is rebuilt from the file itself, so it never says anything the
journal does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

START = "<!-- latest results: written by make bench from the runs below -->"
END = "<!-- end of latest results -->"
_RUN = re.compile(r"^## make bench, (?P<date>[\d-]+ [\d:]+ UTC), cases (?P<cases>[a-z,]+)$")
_CODE = re.compile(r"^- code: (?P<commit>\S+)(?P<local> with local changes)?; mode: (?P<mode>\w+)")


@dataclass(frozen=True)
class CaseResult:
    case: str
    date: str
    commit: str
    rows: tuple[list[str], ...]  # the table's cells, per row


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def newest_per_case(text: str) -> dict[str, CaseResult]:
    """Per case, the rows of the newest full-mode run that measured it."""
    newest: dict[str, CaseResult] = {}
    run: dict[str, str] | None = None
    rows: dict[str, list[list[str]]] = {}

    def close() -> None:
        if run is not None and run.get("mode") == "full":
            for case, case_rows in rows.items():
                newest[case] = CaseResult(case, run["date"], run["commit"], tuple(case_rows))

    for line in text.splitlines():
        if heading := _RUN.match(line):
            close()
            run, rows = {"date": heading["date"]}, {}
        elif line.startswith("## ") or line.startswith("# "):
            close()
            run, rows = None, {}
        elif run is not None and (code := _CODE.match(line)):
            run["commit"] = code["commit"] + ("+" if code["local"] else "")
            run["mode"] = code["mode"]
        elif run is not None and line.startswith("| ") and not line.startswith("| case "):
            cells = _cells(line)
            if len(cells) == 6 and re.fullmatch(r"[a-z]", cells[0]):
                rows.setdefault(cells[0], []).append(cells)
    close()
    return newest


def render(newest: dict[str, CaseResult]) -> str:
    lines = ["| case | measure | median | target | result | run (UTC) | commit |", "|---|---|---|---|---|---|---|"]
    for case in sorted(newest):
        result = newest[case]
        for cells in result.rows:
            _, measure, median, _spread, target, verdict = cells
            lines.append(f"| {case} | {measure} | {median} | {target} | {verdict} | {result.date} | {result.commit} |")
    return "\n".join(lines)


def refresh(path: Path) -> None:
    """Rewrite the block between the markers from the runs in ``path``."""
    text = path.read_text(encoding="utf-8")
    head, found, rest = text.partition(START)
    if not found:
        raise ValueError(f"{path} has no latest-results block ({START!r})")
    _, found, tail = rest.partition(END)
    if not found:
        raise ValueError(f"{path} has no end of its latest-results block ({END!r})")
    table = render(newest_per_case(tail))
    path.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")
