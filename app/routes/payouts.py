"""Chargebacks and payout requests, served from the store; offset paging pinned by marker.

GET /v1/{account_id}/payouts/chargebacks  (api_payouts_list_chargebacks)
GET /v1/{account_id}/payouts/requests     (api_payouts_list_requests)
"""

from __future__ import annotations

from typing import Annotated

from litestar import Request

from app.answers.feeds import ChargebacksPage, PayoutRequestsPage
from app.envelope import Envelope
from app.gate import v1_get
from app.gate.readers import windowed_reader
from app.params import FEED_WINDOW_MAX_DAYS, Limit100, Offset, provide_date_window, unix_seconds
from app.store import payouts
from app.store.snapshot import SnapshotQuery, snapshot_next
from app.store.source import StoreReader

Marker = Annotated[
    int | None, unix_seconds("Snapshot pin, unix seconds: omit on the first page, then pass back unchanged.")
]


@v1_get(
    "/v1/{account_id:int}/payouts/chargebacks",
    permission="api_payouts_list_chargebacks",
    provides=windowed_reader(provide_date_window(FEED_WINDOW_MAX_DAYS)),
    tags=["payouts"],
    summary="Chargebacks (store)",
)
async def chargebacks(
    request: Request, reader: StoreReader, limit: Limit100 = 10, offset: Offset = 0, marker: Marker = None
) -> Envelope[ChargebacksPage]:
    """Chargebacks filed in the window (by filing date), newest first.

    Rules: ``end_date`` must not be before ``start_date``; rows after ``marker`` are not
    listed (the pin of the first page).
    """
    query = SnapshotQuery(reader.date_window.start, reader.date_window.end, offset, limit, marker)
    sourced = await payouts.page(reader, payouts.CHARGEBACKS, query)
    return sourced.envelope(request, snapshot_next(sourced.data, query))


@v1_get(
    "/v1/{account_id:int}/payouts/requests",
    permission="api_payouts_list_requests",
    provides=windowed_reader(provide_date_window(FEED_WINDOW_MAX_DAYS)),
    tags=["payouts"],
    summary="Payout requests (store)",
)
async def payout_requests(
    request: Request, reader: StoreReader, offset: Offset = 0, marker: Marker = None
) -> Envelope[PayoutRequestsPage]:
    """Withdrawal requests, newest first; the page size is fixed at 10.

    Rules: ``end_date`` must not be before ``start_date``; rows after ``marker`` are not
    listed (the pin of the first page).
    """
    window = reader.date_window
    query = SnapshotQuery(window.start, window.end, offset, payouts.PAYOUT_REQUESTS_PAGE_SIZE, marker)
    sourced = await payouts.page(reader, payouts.PAYOUT_REQUESTS, query)
    return sourced.envelope(request, snapshot_next(sourced.data, query, with_limit=False))


ROUTES = [chargebacks, payout_requests]
