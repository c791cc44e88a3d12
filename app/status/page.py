"""The status page's HTML: a sync table and a 90-day earnings chart, rendered on the server,
and the sign-in page a browser gets without a key.

No template engine, no script and no inline style attribute: plain HTML with escaped values,
one ``<style>`` block (allowed by its hash in the pages' Content-Security-Policy,
``app.html_headers``) and an inline SVG bar chart (one bar per UTC day, a scale on the left,
dates under the first and last bars).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from html import escape

from app.html_headers import page_headers, style_csp
from app.store.status import DayEarnings, ScheduleRow, StatusReads, SyncRow, Viewer

CHART_W, CHART_H, MARGIN_L, MARGIN_B = 900, 220, 70, 24

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
table{border-collapse:collapse;width:100%} th,td{padding:4px 8px;border-bottom:1px solid #d8dee4;text-align:left}
th{background:#f3f5f7} td.num{text-align:right} .err{color:#b42318} .ok{color:#067647}
progress{width:80px;height:8px;vertical-align:middle}
form.out{float:right} label{display:block;margin:16px 0 4px} input{font:inherit;width:36em;max-width:100%}
button{font:inherit;margin-top:8px}
"""

#: Headers of every status and sign-in page (never cached: they show one organization).
HEADERS = {**page_headers(style_csp(_STYLE)), "Cache-Control": "no-store"}


def when(value: datetime | None) -> str:
    return "-" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


def _backfill(row: SyncRow) -> str:
    fraction = row.backfill_fraction
    if fraction is None:
        return "complete" if row.coverage_start is not None else "-"
    return f'<progress value="{fraction:.3f}" max="1"></progress> {fraction * 100:.0f}%'


def _sync_row(row: SyncRow) -> str:
    if row.last_run_status is None:
        last_run = "-"
    else:
        last_run = f"{escape(row.last_run_kind or '')} {escape(row.last_run_status)}, {when(row.last_run_at)}"
    error = (
        f'<span class="err">{escape(row.last_error[:160])}</span> ({when(row.last_error_at)})'
        if row.last_error else '<span class="ok">none</span>'
    )
    coverage = "-" if row.coverage_start is None else f"{when(row.coverage_start)} .. {when(row.coverage_end)}"
    account = f"{row.account_id}" + (f" ({escape(row.label)})" if row.label else "")
    if row.account_status != "active":  # its sync is stopped (credentials_rejected, paused)
        account += f' <span class="err">{escape(row.account_status)}</span>'
    cells = [
        account, escape(row.resource), coverage, duration(row.lag_seconds), last_run, error, _backfill(row),
    ]
    return "<tr>" + "".join(
        f'<td class="num">{c}</td>' if i == 3 else f"<td>{c}</td>" for i, c in enumerate(cells)
    ) + "</tr>"


def earnings_chart(days: Sequence[DayEarnings]) -> str:
    """An SVG bar chart of net earnings per day (the largest day fills the height)."""
    top = max((d.net for d in days), default=Decimal(0)) or Decimal(1)
    plot_w, plot_h = CHART_W - MARGIN_L, CHART_H - MARGIN_B
    step = plot_w / max(len(days), 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="net earnings per day" '
        f'width="{CHART_W}" height="{CHART_H}" viewBox="0 0 {CHART_W} {CHART_H}">',
        f'<line x1="{MARGIN_L}" y1="{plot_h}" x2="{CHART_W}" y2="{plot_h}" stroke="#98a2b3"/>',
        f'<text x="{MARGIN_L - 6}" y="12" text-anchor="end" font-size="11">{top:,.2f}</text>',
        f'<text x="{MARGIN_L - 6}" y="{plot_h}" text-anchor="end" font-size="11">0</text>',
    ]
    for i, day in enumerate(days):
        height = float(day.net / top) * (plot_h - 4) if day.net > 0 else 0.0
        x = MARGIN_L + i * step
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{plot_h - height:.1f}" width="{max(step - 2, 1):.1f}" '
            f'height="{height:.1f}" fill="#1570ef"><title>{day.day}: {day.net:,.2f}</title></rect>'
        )
    if days:
        parts.append(f'<text x="{MARGIN_L}" y="{CHART_H - 6}" font-size="11">{days[0].day}</text>')
        parts.append(
            f'<text x="{CHART_W}" y="{CHART_H - 6}" text-anchor="end" font-size="11">{days[-1].day}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _schedule_row(row: ScheduleRow) -> str:
    target = f"{row.account_id if row.account_id is not None else 'all accounts'}, {row.resource or 'all resources'}"
    if row.last_status is None:
        last = "-"
    else:
        last = f"{escape(row.last_status)}, due {when(row.last_due_at)}"
        if row.last_rows_read:
            last += f", {row.last_rows_read:,} rows read"
    error = f'<span class="err">{escape(row.last_error[:160])}</span>' if row.last_error else "-"
    cells = [str(row.id), escape(target), escape(row.action), f"<code>{escape(row.cron)}</code>",
             "paused" if row.paused else when(row.next_run_at), last, error]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _schedules(rows: Sequence[ScheduleRow]) -> str:
    if not rows:
        return ""  # no schedules: no section (relay schedules add makes one)
    header = "".join(f"<th>{h}</th>" for h in ("id", "what", "action", "cron", "next run", "last run", "last error"))
    body = "".join(_schedule_row(r) for r in rows)
    return f"<h2>Schedules</h2>\n<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>\n"


def render(viewer: Viewer, reads: StatusReads, generated: datetime, *, session: bool = False) -> str:
    """The page; ``session``: viewed through a sign-in session (it offers to sign out)."""
    rows, days = reads.sync, reads.days
    accounts = len({r.account_id for r in rows})
    failing = sum(1 for r in rows if r.last_error)
    total = sum((d.net for d in days), Decimal(0))
    header = "".join(
        f"<th>{h}</th>"
        for h in ("account", "resource", "coverage", "lag", "last run", "last error", "backfill")
    )
    body = "".join(_sync_row(r) for r in rows) or '<tr><td colspan="7">no sync tasks yet</td></tr>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Creator Relay status: {escape(viewer.organization)}</title>
<style>{_STYLE}</style></head>
<body>
{_SIGN_OUT if session else ""}<h1>Creator Relay status</h1>
<p>Organization <strong>{escape(viewer.organization)}</strong>: {accounts} accounts,
{len(rows)} synced resources, {failing} with errors. Generated {when(generated)}.</p>
<h2>Sync</h2>
<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>
{_schedules(reads.schedules)}<h2>Net earnings, last {len(days)} days (total {total:,.2f})</h2>
{earnings_chart(days)}
</body></html>"""


_SIGN_OUT = '<form class="out" method="post" action="/status/sign-out"><button type="submit">Sign out</button></form>\n'


def sign_in_page(message: str | None, session_minutes: int) -> str:
    """The form an admin key is entered in (posted to ``POST /status``); ``message``: why the
    last attempt or session did not open the page."""
    note = f'<p class="err">{escape(message)}</p>\n' if message else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Creator Relay status: sign in</title>
<style>{_STYLE}</style></head>
<body>
<h1>Creator Relay status</h1>
{note}<form method="post" action="/status">
<label for="key">Admin API key</label>
<input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required>
<br><button type="submit">Sign in</button>
</form>
<p>The page shows the key's organization. This browser then keeps a session for
{session_minutes} minutes (a cookie, not the key); revoking the key ends it.</p>
</body></html>"""
