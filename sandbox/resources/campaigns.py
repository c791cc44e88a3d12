"""Campaigns (= tracking links): the links list, per-link stats, overview and chart.

Overview and chart are derived from the links and their daily stats only, so the store
can compute the same answers from synced data (docs/upstream.md, "Campaigns").
"""

from __future__ import annotations

from collections import defaultdict

from litestar import get

from app.upstream import paths
from sandbox.core.checksum import money
from sandbox.core.errors import not_found
from sandbox.core.params import int_param, time_param, window
from sandbox.core.timefmt import DAY, day_start, day_str, iso_z, month_start
from sandbox.core.timeline import offset_page
from sandbox.domain.charts import delta
from sandbox.domain.links import TrackingLinks
from sandbox.state import SandboxState


def _series(links: TrackingLinks, first_day: int, last_day: int, now: int):
    """Per-day (clicks, claims) summed over all links existing on each day, plus the days."""
    last_day = min(last_day, day_start(now))
    clicks: dict[int, int] = defaultdict(int)
    claims: dict[int, int] = defaultdict(int)
    for i in links.timeline.window(0, min(now, last_day + DAY - 1)):
        for s in links.days(i, first_day, last_day):
            clicks[s.day] += s.clicks or 0
            claims[s.day] += s.subs
    days = list(range(first_day, last_day + 1, DAY))
    return days, clicks, claims


def _points(days, values) -> list[dict]:
    return [{"date": day_str(d), "count": values.get(d, 0)} for d in days]


@get(paths.route(paths.CAMPAIGNS_CHART), sync_to_thread=False)
def campaigns_chart(
    account_id: int, sandbox: SandboxState, now: int, start_date: str | None = None, end_date: str | None = None
) -> dict:
    lo, hi = window(start_date, end_date, now)
    days, clicks, claims = _series(sandbox.world(account_id).tracking_links, day_start(lo), day_start(hi), now)
    return {"clicks": _points(days, clicks), "claims": _points(days, claims)}


@get(paths.route(paths.CAMPAIGNS_OVERVIEW), sync_to_thread=False)
def campaigns_overview(
    account_id: int, sandbox: SandboxState, now: int, start_date: str | None = None, end_date: str | None = None
) -> dict:
    lo, hi = window(start_date, end_date, now)
    links = sandbox.world(account_id).tracking_links
    first, last = day_start(lo), day_start(hi)
    span_days = (last - first) // DAY + 1
    days, clicks, claims = _series(links, first, last, now)
    _, prev_clicks, prev_claims = _series(links, first - span_days * DAY, first - DAY, now)
    length = hi - lo + 1
    count = len(links.timeline.window(lo, min(hi, now)))
    prev_count = len(links.timeline.window(lo - length, min(lo - 1, now)))
    totals = {
        "count": (count, prev_count),
        "claims": (sum(claims.values()), sum(prev_claims.values())),
        "clicks": (sum(clicks.values()), sum(prev_clicks.values())),
    }
    return {
        "campaigns": {
            "hasStatistic": len(links.timeline.window(0, now)) > 0,
            **{name: {"total": cur, "delta": delta(cur, prev, 0)} for name, (cur, prev) in totals.items()},
            "chartData": _points(days, claims),
        }
    }


@get(paths.route(paths.TRACKING_LINKS), sync_to_thread=False)
def tracking_links(
    account_id: int, sandbox: SandboxState, now: int, limit: str | None = None, offset: str | None = None
) -> dict:
    size = int_param("limit", limit, 10, 1, 100)
    skip = int_param("offset", offset, 0, 0)
    links = sandbox.world(account_id).tracking_links
    indexes, total = offset_page(links.timeline, 0, now, skip, size)
    return {"list": [links.link(i) for i in indexes], "hasMore": skip + len(indexes) < total}


@get(paths.route(paths.TRACKING_LINK_STATS), sync_to_thread=False)
def tracking_link_stats(
    account_id: int,
    link_id: int,
    sandbox: SandboxState,
    now: int,
    date_start: str | None = None,
    date_end: str | None = None,
) -> dict:
    links = sandbox.world(account_id).tracking_links
    i = links.timeline.index_of_id(link_id)
    if i is None or links.timeline.time_of(i) > now:
        raise not_found(f"tracking link {link_id}")
    first = day_start(time_param("date_start", date_start, 0))
    last = day_start(time_param("date_end", date_end, now, end=True))
    days = links.days(i, first, min(last, day_start(now)))
    monthly: dict[int, list[int]] = {}
    for s in days:
        acc = monthly.setdefault(month_start(s.day), [0, 0, 0, 0])
        acc[0] += s.clicks or 0
        acc[1] += s.subs
        acc[2] += s.revenue_cents
        acc[3] += s.spenders
    return {
        "summary": {
            "clicks_total": sum(s.clicks or 0 for s in days),
            "subs_total": sum(s.subs for s in days),
            "revenue_total": money(sum(s.revenue_cents for s in days)),
            "spenders_total": sum(s.spenders for s in days),
            "last_scanned_at": iso_z(now - now % 3600),
        },
        "daily_metrics": [
            {"timestamp": day_str(s.day), "clicks": s.clicks, "subs": s.subs,
             "revenue": money(s.revenue_cents), "spenders": s.spenders}
            for s in days
        ],
        "monthly_metrics": [
            {"timestamp": day_str(m), "clicks": c, "subs": su, "revenue": money(rv), "spenders": sp}
            for m, (c, su, rv, sp) in monthly.items()
        ],
    }


def tracking_links_truth(sandbox, account_id, lo, hi, params):
    links = sandbox.world(account_id).tracking_links
    return (f"{links.link(i)['id']}|{links.link(i)['createdAt']}" for i in links.timeline.window(lo, hi))


def tracking_link_daily_truth(sandbox, account_id, lo, hi, params):
    """Daily stats rows of every link (or ``link_id``) for days in [day(lo), day(hi)]."""
    links = sandbox.world(account_id).tracking_links
    only = int(params["link_id"]) if params.get("link_id") else None
    for i in links.timeline.window(0, hi):
        link_id = links.timeline.id_of(i)
        if only is not None and link_id != only:
            continue
        for s in links.days(i, day_start(lo), day_start(hi)):
            clicks = "" if s.clicks is None else s.clicks
            yield f"{link_id}|{day_str(s.day)}|{clicks}|{s.subs}|{money(s.revenue_cents)}|{s.spenders}"


ROUTES = [campaigns_chart, campaigns_overview, tracking_links, tracking_link_stats]
TRUTH = {"tracking_links": tracking_links_truth, "tracking_link_daily": tracking_link_daily_truth}
