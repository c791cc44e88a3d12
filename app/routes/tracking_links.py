"""One tracking link's stats, served from the store (campaigns and tracking links are the
same resource; the store side is ``app.store.campaigns``).

GET /v1/{account_id}/tracking-links/{link_id}/stats  (api_tracking_links_read)
"""

from __future__ import annotations

from typing import Annotated

from litestar import Request

from app.answers.charts import LinkStats
from app.envelope import Envelope
from app.gate import EXPENSIVE_READS, v1_get
from app.gate.readers import windowed_reader
from app.params import identifier, provide_open_date_window
from app.store import campaigns
from app.store.source import StoreReader

LinkId = Annotated[int, identifier("The tracking link (campaign) id.")]


@v1_get(
    "/v1/{account_id:int}/tracking-links/{link_id:int}/stats",
    permission="api_tracking_links_read",
    provides=windowed_reader(provide_open_date_window),
    share=EXPENSIVE_READS,
    tags=["campaigns"],
    summary="Tracking link stats (store)",
)
async def tracking_link_stats(
    request: Request, reader: StoreReader, link_id: LinkId
) -> Envelope[LinkStats]:
    """One link's summary and daily and monthly metrics.

    Rules: ``date_end`` must not be before ``date_start``; an absent one leaves the window
    open on that side. An unknown link is a 404.
    """
    query = campaigns.StatsQuery(link_id, reader.date_window)
    sourced = await campaigns.link_stats(reader, query)
    return sourced.envelope(request)


ROUTES = [tracking_link_stats]
