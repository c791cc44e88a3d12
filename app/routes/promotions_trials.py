"""Promotions and trials: one chronological feed, live from the upstream.

GET /v1/{account_id}/promotions-trials  (api_promotions_trials_list)
"""

from __future__ import annotations

from litestar import Request

from app.answers.feeds import PromotionsTrialsPage
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.paging import ITEMS_PAGE, offset_page
from app.params import Limit200, Offset
from app.upstream import paths
from app.upstream.relay import relay


@v1_get(
    "/v1/{account_id:int}/promotions-trials",
    permission="api_promotions_trials_list",
    tags=["promotions"],
    summary="Promotions and trials (live)",
)
async def promotions_trials(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    limit: Limit200 = 100,
    offset: Offset = 0,
) -> Envelope[PromotionsTrialsPage]:
    """Promo and trial items, each with exactly one of ``promo`` or ``trial``; offset-paged."""
    params = {"limit": limit, "offset": offset}
    payload = await relay(upstream, account, paths.PROMOTIONS_TRIALS, params, expect=ITEMS_PAGE)
    return offset_page(request, payload, limit, offset, rows="items")


ROUTES = [promotions_trials]
