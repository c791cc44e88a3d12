"""`relay sync status` fits 100 columns; `--wide` shows every column in full."""

from __future__ import annotations

import io

from rich.console import Console

from sync.status_view import NARROW_WIDTH, print_status

LONG_ERROR = "upstream answered 503 after 5 attempts on /api/accounts/123456789/earnings/transactions " * 2


def _row(account_id: int, resource: str, **changes) -> dict:
    row = {
        "account_id": account_id, "resource": resource,
        "coverage_start": "2025-11-25T00:00:00+00:00", "coverage_end": "2026-11-25T16:41:07+00:00",
        "last_success_at": "2026-11-25T16:41:07+00:00", "lag_seconds": 7, "last_error": None,
        "last_error_at": None, "lease_owner": None, "due_at": None, "backfill_since": None,
        "failures": 0, "last_run": "succeeded",
    }
    return {**row, **changes}


ROWS = [
    _row(123456789, "tracking_link_daily_stats"),
    _row(123456789, "earnings", last_error=LONG_ERROR, last_error_at="2026-11-25T16:40:00+00:00", failures=3),
    _row(1001, "posts", lease_owner="worker-host-with-a-long-name:123456", coverage_start="1970-01-01T00:00:00+00:00"),
    _row(1002, "chargebacks", coverage_start=None, coverage_end=None, last_success_at=None, lag_seconds=None,
         backfill_since="1970-01-01T00:00:00+00:00"),
]


def _render(wide: bool, width: int) -> str:
    out = io.StringIO()
    print_status(ROWS, wide=wide, console=Console(file=out, width=width, color_system=None))
    return out.getvalue()


def test_the_default_table_fits_100_columns_one_line_per_task() -> None:
    text = _render(False, NARROW_WIDTH)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    body = [line for line in lines if line.lstrip().startswith(("123456789", "1001", "1002"))]
    assert len(body) == len(ROWS)  # nothing folded onto a second line
    assert "tracking_link_daily_stats  2025-11-25" in text
    assert "error (3x): upstream" in text and "…" in text  # the error, cut
    assert "running on worker-host" in text and "backfill to 1970-01-01" in text
    assert "posts                      all history" in text  # a backfill reached the beginning


def test_wide_shows_full_timestamps_the_lease_and_the_whole_error() -> None:
    text = _render(True, 400)
    assert "2025-11-25 00:00:00 .. 2026-11-25 16:41:07" in text
    assert "worker-host-with-a-long-name:123456" in text
    assert LONG_ERROR.strip() in text
    assert max(len(line) for line in text.splitlines()) > 100


def _schedule(schedule_id: int, **changes) -> dict:
    item = {
        "id": schedule_id, "organization": "acme", "account_id": 123456789, "resource": "earnings",
        "action": "reconcile", "cron": "0 3 * * mon", "timezone": "UTC", "paused": False,
        "next_run_at": "2026-11-30T03:00:00+00:00",
        "last_run": {"due_at": "2026-11-23T03:00:00+00:00", "status": "succeeded", "rows_read": 120345,
                     "rows_changed": 12, "error": None},
    }
    return {**item, **changes}


def test_schedules_follow_the_table_one_line_each_within_100_columns() -> None:
    failed = {"due_at": "2026-11-25T16:00:00+00:00", "status": "failed", "rows_read": 0, "rows_changed": 0,
              "error": LONG_ERROR}
    items = [_schedule(1), _schedule(2, account_id=None, resource=None, action="export", last_run=failed),
             _schedule(3, paused=True, last_run=None)]
    out = io.StringIO()
    print_status(ROWS, wide=False, console=Console(file=out, width=NARROW_WIDTH, color_system=None), schedules=items)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 100
    at = lines.index("Schedules (relay schedules list --json: every field)")
    assert lines[at + 1].split()[:4] == ["id", "action", "target", "cron"]
    assert len(lines) == at + 2 + len(items)
    assert "123456789/earnings" in lines[at + 2] and lines[at + 2].endswith("ok 11-23 03:00 120345 read 12 changed")
    assert "all/all" in lines[at + 3] and "failed 11-25 16:00: upstream" in lines[at + 3]
    assert " paused " in lines[at + 4] and lines[at + 4].endswith("never")


def test_an_account_whose_sync_is_stopped_says_so_first() -> None:
    rows = [_row(555, "earnings", account_status="credentials_rejected",
                 last_error="upstream_credentials_rejected: 401", failures=1),
            _row(556, "posts", account_status="paused")]
    out = io.StringIO()
    print_status(rows, wide=False, console=Console(file=out, width=NARROW_WIDTH, color_system=None))
    text = out.getvalue()
    assert "account credentials_rejected: upstream_cred" in text  # cut to the width
    assert "account paused" in text
    wide = io.StringIO()
    print_status(rows, wide=True, console=Console(file=wide, width=400, color_system=None))
    assert "credentials_rejected" in wide.getvalue() and "paused" in wide.getvalue()
