"""Campaigns (tracking links): overview, chart and one link's stats, served from the store.

GET /v1/{account_id}/campaigns/overview               (api_campaigns_read_overview)
GET /v1/{account_id}/campaigns/chart                  (api_campaigns_read_chart)
GET /v1/{account_id}/tracking-links/{link_id}/stats   (api_tracking_links_read)
"""

from __future__ import annotations

from typing import Annotated

from litestar import Request
from litestar.di import NamedDependency

from app.envelope import Envelope
from app.gate import v1_get
from app.params import DateWindow, identifier, provide_date_window, provide_open_date_window
from app.store import campaigns
from app.store.source import READER, StoreReader

LinkId = Annotated[int, identifier("The tracking link (campaign) id.")]


@v1_get(
    "/v1/{account_id:int}/campaigns/overview",
    permission="api_campaigns_read_overview",
    dependencies={"window": provide_date_window(), **READER},
    tags=["campaigns"],
    summary="Campaigns overview (store)",
)
async def campaigns_overview(request: Request, reader: StoreReader, window: NamedDependency[DateWindow]) -> Envelope:
    """Link count, clicks and claims with deltas, and the daily claims chart.

    Rules: ``end_date`` must not be before ``start_date``. The deltas compare with the
    window of equal length just before (it starts no earlier than 1970-01-01).
    """
    sourced = await campaigns.overview(reader, window)
    return sourced.envelope(request)


@v1_get(
    "/v1/{account_id:int}/campaigns/chart",
    permission="api_campaigns_read_chart",
    dependencies={"window": provide_date_window(), **READER},
    tags=["campaigns"],
    summary="Campaigns chart (store)",
)
async def campaigns_chart(request: Request, reader: StoreReader, window: NamedDependency[DateWindow]) -> Envelope:
    """Daily clicks and claims over all links.

    Rules: ``end_date`` must not be before ``start_date``.
    """
    sourced = await campaigns.chart(reader, window)
    return sourced.envelope(request)


@v1_get(
    "/v1/{account_id:int}/tracking-links/{link_id:int}/stats",
    permission="api_tracking_links_read",
    dependencies={"window": provide_open_date_window, **READER},
    tags=["campaigns"],
    summary="Tracking link stats (store)",
)
async def tracking_link_stats(
    request: Request, reader: StoreReader, link_id: LinkId, window: NamedDependency[DateWindow]
) -> Envelope:
    """One link's summary and daily and monthly metrics.

    Rules: ``date_end`` must not be before ``date_start``; an absent one leaves the window
    open on that side. An unknown link is a 404.
    """
    query = campaigns.StatsQuery(link_id, window)
    sourced = await campaigns.link_stats(reader, query)
    return sourced.envelope(request)


ROUTES = [campaigns_overview, campaigns_chart, tracking_link_stats]
