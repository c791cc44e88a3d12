"""Direct-message statistics, live from the upstream.

GET /v1/{account_id}/direct-messages  (api_direct_messages_stats)

Two paging modes, as the spec says: by default ``end_date`` is the cursor (the next page
ends at the date of this page's last item); with ``query`` set, paging is by offset.
"""

from __future__ import annotations

from litestar import Request
from litestar.di import NamedDependency

from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.live import ITEMS_PAGE, cursor_next, live_page, offset_next, relay
from app.params import DateWindow, Limit100, Offset, Search, provide_date_window
from app.upstream import paths


@v1_get(
    "/v1/{account_id:int}/direct-messages",
    permission="api_direct_messages_stats",
    dependencies={"window": provide_date_window(end_exclusive=True)},
    tags=["direct messages"],
    summary="Direct message statistics (live)",
)
async def direct_message_stats(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    window: NamedDependency[DateWindow],
    limit: Limit100 = 10,
    search: Search = None,
    offset: Offset = 0,
) -> Envelope:
    """Delivery and engagement per direct message, newest first.

    ``end_date`` doubles as the cursor, so it is exclusive: the next page ends just before
    the previous page's last message (a bare date or the default includes the whole day).

    Rules: ``end_date`` must not be before ``start_date``; ``offset`` counts only when
    ``query`` is set (it is still validated without it).
    """
    search = search or None  # an empty query is no query
    params = {
        "limit": limit,
        **window.upstream(),
        "query": search,
        "offset": offset if search else None,
    }
    payload = await relay(upstream, account, paths.MESSAGES_STATS, params, expect=ITEMS_PAGE)
    rows, more = payload["items"], payload["hasMore"]
    if search:
        following = offset_next(limit, offset, rows, more)
    else:
        following = cursor_next(limit, rows, more, param="end_date", member="date")
    return live_page(request, payload, following)


ROUTES = [direct_message_stats]
