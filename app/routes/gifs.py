"""Trending GIFs from the upstream's GIF proxy (not account-scoped).

GET /v1/gifs/trending  (api_gifs_trending)
"""

from __future__ import annotations

from litestar import Request

from app.answers.media import TrendingGifs
from app.envelope import Envelope
from app.gate import Upstream, v1_get
from app.paging import live_page, offset_next
from app.params import Limit50, Offset
from app.upstream import paths
from app.upstream.relay import organization_credential, relay

#: The provider's body: its rows, and the pagination the next page is computed from.
GIF_PAGE = {
    "data": list,
    "pagination.offset": int,
    "pagination.count": int,
    "pagination.total_count": int,
}


@v1_get(
    "/v1/gifs/trending",
    permission="api_gifs_trending",
    tags=["gifs"],
    summary="Trending GIFs (live)",
)
async def trending_gifs(
    request: Request,
    upstream: Upstream,
    limit: Limit50 = 20,
    offset: Offset = 0,
) -> Envelope[TrendingGifs]:
    """The provider's body nested as ``data.data`` and ``data.pagination``; offset-paged.

    There is no ``hasMore``: a next page exists while ``offset + count < total_count``.
    The upstream wants a signed-in account even here: one of the organization's is used.
    """
    account = await organization_credential(request)
    params = {"limit": limit, "offset": offset}
    payload = await relay(
        upstream, account, paths.GIFS_TRENDING, params,
        expect=GIF_PAGE,
    )
    following = offset_next(limit, offset, payload["data"], has_more(payload))
    return live_page(request, payload, following)


def has_more(payload: dict) -> bool:
    """The provider says no ``hasMore``; its pagination tells: rows remain past this page."""
    page = payload["pagination"]
    return page["offset"] + page["count"] < page["total_count"]


ROUTES = [trending_gifs]
