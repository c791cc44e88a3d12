"""Custom chat lists, live from the upstream.

GET /v1/{account_id}/lists  (api_chats_list_chat_lists)
"""

from __future__ import annotations

from litestar import Request

from app.answers.feeds import ChatListsPage
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.paging import LIST_PAGE, offset_page
from app.params import Limit100, Offset
from app.upstream import paths
from app.upstream.relay import relay


@v1_get(
    "/v1/{account_id:int}/lists",
    permission="api_chats_list_chat_lists",
    tags=["chats"],
    summary="Chat lists (live)",
)
async def list_chat_lists(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    limit: Limit100 = 10,
    offset: Offset = 0,
) -> Envelope[ChatListsPage]:
    """Custom user lists, usable as ``list_id`` on chats; offset-paged like chats."""
    params = {"limit": limit, "offset": offset}
    payload = await relay(upstream, account, paths.CHAT_LISTS, params, expect=LIST_PAGE)
    return offset_page(request, payload, limit, offset, rows="list")


ROUTES = [list_chat_lists]
