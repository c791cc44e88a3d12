"""Scheduled chat items, live from the upstream.

GET /v1/{account_id}/schedules/later/chat  (api_schedules_later_chat)
"""

from __future__ import annotations

from litestar import Request

from app.answers.feeds import ScheduledChats
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.paging import live_page
from app.params import Limit50
from app.upstream import paths
from app.upstream.relay import relay


@v1_get(
    "/v1/{account_id:int}/schedules/later/chat",
    permission="api_schedules_later_chat",
    tags=["schedules"],
    summary="Upcoming scheduled chat items (live)",
)
async def later_chat(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    limit: Limit50 = 10,
) -> Envelope[ScheduledChats]:
    """The next ``limit`` scheduled direct and mass messages by publish time. Not paged:
    the spec gives this route no cursor or offset, only the next items."""
    params = {"limit": limit}
    payload = await relay(
        upstream, account, paths.SCHEDULES_LATER_CHAT, params, expect={"list": list}
    )
    return live_page(request, payload)


ROUTES = [later_chat]
