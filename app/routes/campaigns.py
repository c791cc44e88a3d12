"""Campaigns (tracking links): overview, chart and one link's stats, served from the store.

GET /v1/{account_id}/campaigns/overview               (api_campaigns_read_overview)
GET /v1/{account_id}/campaigns/chart                  (api_campaigns_read_chart)
GET /v1/{account_id}/tracking-links/{link_id}/stats   (api_tracking_links_read)
"""

from __future__ import annotations

from typing import Annotated

from litestar import Request
from litestar.di import NamedDependency
from litestar.params import FromPath, Parameter

from app.envelope import Envelope
from app.gate import v1_get
from app.params import TIMESTAMP_RULE, DateWindow, parse_timestamp, provide_date_window
from app.store import campaigns
from app.store.source import READER, StoreReader

StatsDate = Annotated[str | None, Parameter(description=f"UTC; {TIMESTAMP_RULE}. Absent: unbounded.")]


@v1_get(
    "/v1/{account_id:int}/campaigns/overview",
    permission="api_campaigns_read_overview",
    dependencies={"window": provide_date_window(), **READER},
    tags=["campaigns"],
    summary="Campaigns overview (store)",
)
async def campaigns_overview(request: Request, reader: StoreReader, window: NamedDependency[DateWindow]) -> Envelope:
    """Link count, clicks and claims with deltas, and the daily claims chart."""
    sourced = await campaigns.overview(reader, campaigns.CampaignWindow(window.start, window.end))
    return sourced.envelope(request)


@v1_get(
    "/v1/{account_id:int}/campaigns/chart",
    permission="api_campaigns_read_chart",
    dependencies={"window": provide_date_window(), **READER},
    tags=["campaigns"],
    summary="Campaigns chart (store)",
)
async def campaigns_chart(request: Request, reader: StoreReader, window: NamedDependency[DateWindow]) -> Envelope:
    """Daily clicks and claims over all links."""
    sourced = await campaigns.chart(reader, campaigns.CampaignWindow(window.start, window.end))
    return sourced.envelope(request)


@v1_get(
    "/v1/{account_id:int}/tracking-links/{link_id:int}/stats",
    permission="api_tracking_links_read",
    dependencies=READER,
    tags=["campaigns"],
    summary="Tracking link stats (store)",
)
async def tracking_link_stats(
    request: Request, reader: StoreReader, link_id: FromPath[int], date_start: StatsDate = None, date_end: StatsDate = None
) -> Envelope:
    """One link's summary and daily and monthly metrics."""
    query = campaigns.StatsQuery(
        link_id,
        parse_timestamp("date_start", date_start) if date_start else None,
        parse_timestamp("date_end", date_end, end=True) if date_end else None,
    )
    sourced = await campaigns.link_stats(reader, query)
    return sourced.envelope(request)


ROUTES = [campaigns_overview, campaigns_chart, tracking_link_stats]
