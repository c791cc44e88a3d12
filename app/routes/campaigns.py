"""Campaigns (tracking links): overview and chart, served from the store.

GET /v1/{account_id}/campaigns/overview  (api_campaigns_read_overview)
GET /v1/{account_id}/campaigns/chart     (api_campaigns_read_chart)

(One link's stats are in ``app.routes.tracking_links``.)
"""

from __future__ import annotations

from litestar import Request

from app.answers.charts import CampaignsChart, CampaignsOverview
from app.envelope import Envelope
from app.gate import EXPENSIVE_READS, v1_get
from app.gate.readers import windowed_reader
from app.params import DAILY_WINDOW_MAX_DAYS, provide_date_window
from app.store import campaigns
from app.store.source import StoreReader


@v1_get(
    "/v1/{account_id:int}/campaigns/overview",
    permission="api_campaigns_read_overview",
    provides=windowed_reader(provide_date_window(DAILY_WINDOW_MAX_DAYS)),
    share=EXPENSIVE_READS,
    tags=["campaigns"],
    summary="Campaigns overview (store)",
)
async def campaigns_overview(request: Request, reader: StoreReader) -> Envelope[CampaignsOverview]:
    """Link count, clicks and claims with deltas, and the daily claims chart.

    Rules: ``end_date`` must not be before ``start_date``. The deltas compare with the
    window of equal length just before (it starts no earlier than 1970-01-01).
    """
    sourced = await campaigns.overview(reader, reader.date_window)
    return sourced.envelope(request)


@v1_get(
    "/v1/{account_id:int}/campaigns/chart",
    permission="api_campaigns_read_chart",
    provides=windowed_reader(provide_date_window(DAILY_WINDOW_MAX_DAYS)),
    share=EXPENSIVE_READS,
    tags=["campaigns"],
    summary="Campaigns chart (store)",
)
async def campaigns_chart(request: Request, reader: StoreReader) -> Envelope[CampaignsChart]:
    """Daily clicks and claims over all links.

    Rules: ``end_date`` must not be before ``start_date``.
    """
    sourced = await campaigns.chart(reader, reader.date_window)
    return sourced.envelope(request)


ROUTES = [campaigns_overview, campaigns_chart]
