"""The earnings dashboard overview, live from the upstream.

GET /v1/{account_id}/earnings/overview  (api_earnings_read_overview)

(The earnings feed and chart are store-served, in ``app.routes.earnings``.)
"""

from __future__ import annotations

from typing import Literal

from litestar import Request
from litestar.di import NamedDependency
from litestar.params import FromQuery

from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.live import live_page, relay
from app.params import DateWindow, provide_date_window
from app.upstream import paths

OverviewSection = Literal[
    "earnings", "posts", "streams", "visitors", "massMessages", "story", "promo"
]


@v1_get(
    "/v1/{account_id:int}/earnings/overview",
    permission="api_earnings_read_overview",
    dependencies={"window": provide_date_window()},
    tags=["earnings"],
    summary="Earnings overview (live)",
)
async def earnings_overview(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    window: NamedDependency[DateWindow],
    by: FromQuery[OverviewSection | None] = None,
) -> Envelope:
    """Totals, deltas and charts per section; ``by`` narrows to one section (sent as given)."""
    params = {**window.upstream(), "by": by}
    payload = await relay(upstream, account, paths.EARNINGS_OVERVIEW, params)
    return live_page(request, payload)


ROUTES = [earnings_overview]
