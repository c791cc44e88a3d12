"""Reach: profile visitors and the promotions history, live from the upstream.

GET /v1/{account_id}/reach/profile-visitors  (api_reach_read_profile_visitors)
GET /v1/{account_id}/reach/promotions        (api_reach_list_promotions)
"""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Request
from litestar.di import NamedDependency
from litestar.params import FromQuery, QueryParameter

from app.answers.charts import ProfileVisitors
from app.answers.feeds import PromotionsPage
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.paging import ITEMS_PAGE, live_page, offset_page
from app.params import (
    BIGINT_MAX,
    BIGINT_SCHEMA,
    CHART_WINDOW_MAX_DAYS,
    FEED_WINDOW_MAX_DAYS,
    DateWindow,
    Limit100,
    Offset,
    provide_date_window,
)
from app.upstream import paths
from app.upstream.relay import relay

#: The spec caps (clamps) the top-countries count instead of refusing larger values.
TOP_COUNTRIES_CAP = 100

TopCountries = Annotated[
    int,
    QueryParameter(
        ge=0,
        le=BIGINT_MAX,
        schema_extra=BIGINT_SCHEMA,
        description=f"Rows of topCountries. Above {TOP_COUNTRIES_CAP} is clamped to "
        f"{TOP_COUNTRIES_CAP}; 0 selects the upstream's default (no limit is sent).",
    ),
]


def top_countries_limit(limit: int) -> int | None:
    """What we send upstream: clamped to the cap; 0 means "not sent" (upstream default)."""
    return min(limit, TOP_COUNTRIES_CAP) or None


@v1_get(
    "/v1/{account_id:int}/reach/profile-visitors",
    permission="api_reach_read_profile_visitors",
    dependencies={"window": provide_date_window(CHART_WINDOW_MAX_DAYS)},
    tags=["reach"],
    summary="Profile visitors (live)",
)
async def profile_visitors(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    window: NamedDependency[DateWindow],
    by: FromQuery[Literal["total", "guests", "users", "subscribers"]] = "total",
    limit: TopCountries = 10,
) -> Envelope[ProfileVisitors]:
    """Visitor totals and charts; ``by`` chooses the bucket that ranks ``topCountries``.

    Rules: ``end_date`` must not be before ``start_date``; ``limit`` above 100 is clamped,
    0 sends none (the upstream's default).
    """
    params = {**window.upstream(), "by": by, "limit": top_countries_limit(limit)}
    payload = await relay(upstream, account, paths.REACH_PROFILE_VISITORS, params)
    return live_page(request, payload)


@v1_get(
    "/v1/{account_id:int}/reach/promotions",
    permission="api_reach_list_promotions",
    dependencies={"window": provide_date_window(FEED_WINDOW_MAX_DAYS)},
    tags=["reach"],
    summary="Promotions history (live)",
)
async def promotions(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    window: NamedDependency[DateWindow],
    limit: Limit100 = 10,
    offset: Offset = 0,
) -> Envelope[PromotionsPage]:
    """Discounted-price offers and free-trial bundles created in the window; offset-paged.

    Rules: ``end_date`` must not be before ``start_date``.
    """
    params = {"limit": limit, "offset": offset, **window.upstream()}
    payload = await relay(upstream, account, paths.REACH_PROMOTIONS, params, expect=ITEMS_PAGE)
    return offset_page(request, payload, limit, offset, rows="items")


ROUTES = [profile_visitors, promotions]
