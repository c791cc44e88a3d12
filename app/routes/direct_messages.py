"""Direct-message statistics, live from the upstream.

GET /v1/{account_id}/direct-messages  (api_direct_messages_stats)

Two paging modes, as the spec says: by default ``end_date`` is the cursor (the next page
ends at the date of this page's last item); with ``query`` set, paging is by offset.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from litestar import Request
from litestar.di import NamedDependency

from app.answers.feeds import DirectMessagesPage
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.paging import ITEMS_PAGE, cursor_next, live_page, offset_next, whole_live_page
from app.params import FEED_WINDOW_MAX_DAYS, SECOND, DateWindow, Limit100, Offset, Search, provide_date_window
from app.upstream import paths
from app.upstream.relay import relay

#: The upstream's largest page (the spec's ``limit`` bound too).
LIMIT_MAX = 100


@v1_get(
    "/v1/{account_id:int}/direct-messages",
    permission="api_direct_messages_stats",
    dependencies={"window": provide_date_window(FEED_WINDOW_MAX_DAYS, end_exclusive=True)},
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
) -> Envelope[DirectMessagesPage]:
    """Delivery and engagement per direct message, newest first.

    ``end_date`` doubles as the cursor, so it is exclusive: the next page ends just before
    the previous page's last message (a bare date or the default includes the whole day).
    A page never ends inside a second, so that cursor loses no message: it holds up to
    ``limit`` messages, fewer before a busy second, or all of one second busier than that.

    Rules: ``end_date`` must not be before ``start_date``; ``offset`` counts only when
    ``query`` is set (it is still validated without it).
    """
    search = search or None  # an empty query is no query
    if search:
        params = {"limit": limit, **window.upstream(), "query": search, "offset": offset}
        payload = await relay(upstream, account, paths.MESSAGES_STATS, params, expect=ITEMS_PAGE)
        return live_page(request, payload, offset_next(limit, offset, payload["items"], payload["hasMore"]))
    payload = await _whole_seconds_page(upstream, account, window, limit)
    following = cursor_next(limit, payload["items"], payload["hasMore"], param="end_date", member="date")
    return live_page(request, payload, following)


def _second(item: dict) -> datetime:
    return datetime.fromisoformat(item["date"])


async def _whole_seconds_page(
    upstream: Upstream, account: ConnectedAccount, window: DateWindow, limit: int
) -> dict:
    """A page of the ``end_date`` cursor that never ends inside a second (app/paging.py).

    The upstream's ``end_date`` is a bare second, exclusive, without a tie-breaker: its own
    pages end inside a busy second and the next page, before that second, loses the rest of
    it. So one row more is asked for to see a split, and a busy second that fills the page
    is read whole with an inclusive bound (``end_date`` = the next second). The upstream's
    other members pass through unchanged; ``items`` and ``hasMore`` are this page's.
    """
    first: dict = {}

    async def fetch(ask: int, through: datetime | None = None) -> tuple[list, bool]:
        end = window.end if through is None else through + SECOND
        params = {"limit": ask, **replace(window, end=end).upstream()}
        body = await relay(upstream, account, paths.MESSAGES_STATS, params, expect=ITEMS_PAGE)
        first.setdefault("body", body)
        return body["items"], body["hasMore"]

    items, more = await whole_live_page(fetch, limit, _second, max_ask=LIMIT_MAX)
    return {**first["body"], "items": items, "hasMore": more}


ROUTES = [direct_message_stats]
