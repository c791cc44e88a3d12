"""Payouts: chargebacks and payout requests (offset paging under a snapshot marker)."""

from __future__ import annotations

from litestar import get

from app.upstream import paths
from sandbox.core.errors import bad_request
from sandbox.core.params import int_param, window
from sandbox.core.timeline import offset_page
from sandbox.state import SandboxState

PAYOUT_PAGE = 10


def _snapshot_page(sandbox, timeline, start_date, end_date, marker, offset, limit, now):
    """Rows of [start, min(end, marker)] newest first; ``marker`` (default now) pins the
    snapshot so that rows filed later never shift later pages."""
    lo, hi = window(start_date, end_date, now)
    try:
        pin = now if marker in (None, "") else int(marker)
    except ValueError:
        raise bad_request("marker", "must be unix seconds") from None
    skip = int_param("offset", offset, 0, 0)
    indexes, total = offset_page(timeline, lo, min(hi, pin, now), skip, limit)
    return indexes, total, skip, pin


@get(paths.route(paths.PAYOUTS_CHARGEBACKS), sync_to_thread=False)
def chargebacks(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    start_date: str | None = None,
    end_date: str | None = None,
    limit: str | None = None,
    offset: str | None = None,
    marker: str | None = None,
) -> dict:
    size = int_param("limit", limit, 10, 1, 100)
    source = sandbox.world(account_id).chargebacks
    indexes, total, skip, pin = _snapshot_page(
        sandbox, source.timeline, start_date, end_date, marker, offset, size, now
    )
    sandbox.stats["chargebacks.rows"] += len(indexes)
    return {"list": [source.row(j, now) for j in indexes], "marker": pin, "hasMore": skip + len(indexes) < total}


@get(paths.route(paths.PAYOUTS_REQUESTS), sync_to_thread=False)
def payout_requests(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    start_date: str | None = None,
    end_date: str | None = None,
    offset: str | None = None,
    marker: str | None = None,
) -> dict:
    source = sandbox.world(account_id).payout_requests
    indexes, total, skip, pin = _snapshot_page(
        sandbox, source.timeline, start_date, end_date, marker, offset, PAYOUT_PAGE, now
    )
    return {"list": [source.row(j, now) for j in indexes], "marker": pin, "hasMore": skip + len(indexes) < total}


def chargebacks_truth(sandbox, account_id, lo, hi, params):
    source = sandbox.world(account_id).chargebacks
    return (source.truth_key(j) for j in source.timeline.window(lo, hi))


def payout_requests_truth(sandbox, account_id, lo, hi, params):
    source = sandbox.world(account_id).payout_requests
    now = sandbox.now_s()
    return (source.truth_key(j, now) for j in source.timeline.window(lo, hi))


ROUTES = [chargebacks, payout_requests]
TRUTH = {"chargebacks": chargebacks_truth, "payout_requests": payout_requests_truth}
