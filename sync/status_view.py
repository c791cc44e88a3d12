"""``relay sync status`` as a table: 100 columns by default, every column with ``--wide``.

The narrow table keeps what answers "is it syncing?": where the coverage starts, how long
ago the last success was, the lag (how far the coverage's end is behind the upstream's now)
and one note (an account whose sync is stopped -- ``credentials_rejected``, ``paused`` --,
the last error, the lease holder or a pending backfill), cut to the width. ``--wide`` adds
the account's status, the timestamps in full, the lease, the backfill and the whole error;
``--json`` has every field.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

NARROW_WIDTH = 100
#: Piped ``--wide`` output has no terminal width: wide enough that nothing folds.
PIPED_WIDE_WIDTH = 240


def _short(value: str | None) -> str:
    return "-" if value is None else value[:19].replace("T", " ")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f}{unit}"
    return f"{int(seconds)}s"


def _ago(value: str | None, now: datetime) -> str:
    if value is None:
        return "never"
    return _duration(max(0.0, (now - datetime.fromisoformat(value)).total_seconds())) + " ago"


def _coverage(row: dict) -> str:
    if row["coverage_start"] is None:
        return "-"
    return f"{_short(row['coverage_start'])} .. {_short(row['coverage_end'])}"


def _covered_from(start: str | None) -> str:
    """The coverage's start day; a coverage from 1970 holds the account's whole history."""
    if start is None:
        return "-"
    return "all history" if start.startswith("1970-01-01T00:00:00") else start[:10]


def _stopped(row: dict) -> bool:
    """The account's sync is stopped (credentials rejected, disconnected)."""
    return row.get("account_status") not in (None, "active")


def _note(row: dict) -> str:
    if _stopped(row):  # that comes first: nothing else moves until an operator acts
        return f"account {row['account_status']}" + (f": {row['last_error']}" if row["last_error"] else "")
    if row["last_error"]:
        return f"error ({row['failures'] or 0}x): {row['last_error']}"
    if row["lease_owner"]:
        return f"running on {row['lease_owner']}"
    if row["backfill_since"]:
        return f"backfill to {row['backfill_since'][:10]} pending"
    return ""


#: The coverage's end is the lag's business (lag = upstream now - coverage end).
NARROW_COLUMNS = ("account", "resource", "covered from", "last success", "lag", "note")


def narrow_lines(rows: list[dict], now: datetime) -> list[Text]:
    """The default table's lines: the first five columns as wide as their longest cell, the
    note after them (the console cuts each line at its width with an ellipsis)."""
    cells = [
        (str(r["account_id"]), r["resource"], _covered_from(r["coverage_start"]), _ago(r["last_success_at"], now),
         _duration(r["lag_seconds"]), _note(r))
        for r in rows
    ]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(NARROW_COLUMNS[:-1])]

    def line(values, style: str = "") -> Text:
        fixed = "  ".join(v.ljust(w) for v, w in zip(values[:-1], widths, strict=True))
        return Text.assemble(fixed + "  ", (values[-1], style))

    header = line(NARROW_COLUMNS)
    header.stylize("bold")
    return [header, *(line(c, "red" if r["last_error"] or _stopped(r) else "") for c, r in zip(cells, rows, strict=True))]


def wide_table(rows: list[dict]) -> Table:
    table = Table(title="Sync status")
    for header in ("account", "status", "resource", "coverage", "last success", "lag", "lease", "backfill",
                   "last error"):
        table.add_column(header, overflow="fold")
    for r in rows:
        error = "-" if not r["last_error"] else f"{_short(r['last_error_at'])} {r['last_error']}"
        table.add_row(
            str(r["account_id"]), r.get("account_status") or "-", r["resource"], _coverage(r),
            _short(r["last_success_at"]), _duration(r["lag_seconds"]), r["lease_owner"] or "-",
            _short(r["backfill_since"]) if r["backfill_since"] else "-",
            f"[red]{error}[/red]" if r["last_error"] else error,
        )
    return table


# --- schedules (``relay schedules list``'s items) ----------------------------------------

def last_run_text(item: dict[str, Any]) -> str:
    """The last run in a few words: status, due time, rows, the error."""
    last = item["last_run"]
    if last is None:
        return "never"
    text = f"{last['status']} {last['due_at'][:16].replace('T', ' ')}"
    if last["status"] == "succeeded":
        text += f" read {last['rows_read']} changed {last['rows_changed']}"
    if last["error"]:
        text += f": {last['error']}"
    return text


def target_text(item: dict[str, Any]) -> str:
    return f"{item['account_id'] or 'all'}/{item['resource'] or 'all'}"


def _last_brief(item: dict[str, Any]) -> str:
    last = item["last_run"]
    if last is None:
        return "never"
    due = last["due_at"][5:16].replace("T", " ")
    if last["status"] == "succeeded":
        return f"ok {due} {last['rows_read']} read {last['rows_changed']} changed"
    return f"{last['status']} {due}" + (f": {last['error']}" if last["error"] else "")


SCHEDULE_COLUMNS = ("id", "action", "target", "cron", "next (UTC)", "last run")


def schedule_lines(items: list[dict]) -> list[Text]:
    """The schedules under the table: one line each, the last run cut to the width."""
    cells = [
        (str(i["id"]), i["action"], target_text(i), i["cron"] + ("" if i["timezone"] == "UTC" else f" {i['timezone']}"),
         "paused" if i["paused"] else i["next_run_at"][5:16].replace("T", " "), _last_brief(i))
        for i in items
    ]
    widths = [max([len(h), *(len(c[n]) for c in cells)]) for n, h in enumerate(SCHEDULE_COLUMNS[:-1])]

    def line(values, style: str = "") -> Text:
        fixed = "  ".join(v.ljust(w) for v, w in zip(values[:-1], widths, strict=True))
        return Text.assemble(fixed + "  ", (values[-1], style))

    header = line(SCHEDULE_COLUMNS)
    header.stylize("bold")
    failed = [bool(i["last_run"]) and i["last_run"]["status"] == "failed" for i in items]
    return [Text("Schedules (relay schedules list --json: every field)", style="bold"), header,
            *(line(c, "red" if f else "") for c, f in zip(cells, failed, strict=True))]


def print_status(
    rows: list[dict], *, wide: bool, console: Console | None = None, schedules: list[dict] | None = None
) -> None:
    """The table on stdout: at most 100 columns unless ``wide``; then the schedules, if any."""
    if console is None:
        tty = sys.stdout.isatty()
        if wide:
            console = Console() if tty else Console(width=PIPED_WIDE_WIDTH)
        else:
            console = Console(width=min(Console().width, NARROW_WIDTH) if tty else NARROW_WIDTH)
    if wide:
        console.print(wide_table(rows))
    else:
        console.print("Sync status (--wide: every column)", style="bold")
        for text in narrow_lines(rows, datetime.now(UTC)):
            console.print(text, no_wrap=True, overflow="ellipsis", crop=True)
    if schedules:
        for text in schedule_lines(schedules):
            console.print(text, no_wrap=not wide, overflow="ellipsis" if not wide else "fold", crop=not wide)
