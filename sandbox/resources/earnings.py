"""Earnings: the transactions feed (keyset-paged, gapless across ties) and the chart."""

from __future__ import annotations

from litestar import get
from litestar.params import Parameter

from app.upstream import paths
from sandbox.core.errors import bad_request
from sandbox.core.params import enum_param, int_param, window
from sandbox.core.timefmt import iso
from sandbox.core.timeline import Cursor, keyset_page
from sandbox.domain.charts import buckets, delta, is_daily
from sandbox.domain.earnings import CHART_BY, TIPS_SOURCES, TYPES, lanes_for
from sandbox.state import SandboxState


def _selected_lanes(type_: str | None, tips_source: str | None) -> tuple[int, ...]:
    type_ = enum_param("type", type_, TYPES)
    tips_source = enum_param("tipsSource", tips_source, TIPS_SOURCES)
    if tips_source is not None and type_ != "tips":
        raise bad_request("tipsSource", "only allowed with type=tips")
    return lanes_for(type_, tips_source)


def _int_or_400(name: str, raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise bad_request(name, "must be an integer") from None


@get(paths.route(paths.EARNINGS_TRANSACTIONS), sync_to_thread=False)
def transactions(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    start_date: str | None = None,
    end_date: str | None = None,
    limit: str | None = None,
    order: str | None = None,
    marker: str | None = None,
    marker_id: str | None = Parameter(query="markerId", default=None),
    type_: str | None = Parameter(query="type", default=None),
    tips_source: str | None = Parameter(query="tipsSource", default=None),
) -> dict:
    lanes = _selected_lanes(type_, tips_source)
    size = int_param("limit", limit, 10, 1, 1000)
    descending = enum_param("order", order, ("desc", "asc"), "desc") == "desc"
    lo, hi = window(start_date, end_date, now)
    hi = min(hi, now)
    cursor_time = _int_or_400("marker", marker)
    cursor_id = _int_or_400("markerId", marker_id)
    if cursor_id is not None and cursor_time is None:
        raise bad_request("markerId", "only allowed with marker")
    cursor = None if cursor_time is None else Cursor(cursor_time, cursor_id)

    ledger = sandbox.world(account_id).earnings
    page = keyset_page([ledger.timelines[k] for k in lanes], lo, hi, size, descending, cursor)
    rows = [ledger.row(lanes[pos], i, now) for pos, i in page.rows]
    sandbox.stats["earnings.keys"] += page.keys_examined
    sandbox.stats["earnings.rows"] += len(rows)
    next_marker: int | None = None
    next_marker_id: str | None = None
    if page.rows:
        pos, i = page.rows[-1]
        last_tl = ledger.timelines[lanes[pos]]
        next_marker, next_marker_id = last_tl.time_of(i), str(last_tl.id_of(i))
    return {
        "list": rows,
        "marker": cursor_time if cursor_time is not None else (hi if descending else lo),
        "hasMore": page.has_more,
        "nextMarker": next_marker,
        "nextMarkerId": next_marker_id,
    }


@get(paths.route(paths.EARNINGS_CHART), sync_to_thread=False)
def chart(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    by: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
) -> dict:
    lanes = CHART_BY[enum_param("by", by, CHART_BY, "total")]
    lo, hi = window(start_date, end_date, now)
    ledger = sandbox.world(account_id).earnings
    amounts, counts = [], []
    total_net = total_gross = 0
    for label, first, last in buckets(lo, hi, is_daily(lo, hi)):
        count, net, gross = ledger.sums(lanes, first, min(last, now), now)
        amounts.append({"date": iso(label), "count": net / 100})
        counts.append({"date": iso(label), "count": count})
        total_net += net
        total_gross += gross
    length = hi - lo + 1
    _, previous_net, _ = ledger.sums(lanes, lo - length, min(lo - 1, now), now)
    return {
        "chartAmount": amounts,
        "chartCount": counts,
        "total": total_net / 100,
        "gross": total_gross / 100,
        "delta": delta(total_net, previous_net),
    }


def earnings_truth(sandbox, account_id: int, lo: int, hi: int, params: dict):
    lanes = _selected_lanes(params.get("type"), params.get("tipsSource"))
    ledger = sandbox.world(account_id).earnings
    now = sandbox.now_s()
    for k in lanes:
        for i in ledger.timelines[k].window(lo, hi):
            yield ledger.truth_key(k, i, now)


ROUTES = [transactions, chart]
TRUTH = {"earnings": earnings_truth}
