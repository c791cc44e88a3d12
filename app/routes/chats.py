"""Chats, live from the upstream.

GET /v1/{account_id}/chats  (api_chats_list)

(The custom lists usable as ``list_id`` are in ``app.routes.lists``.)
"""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Request
from litestar.params import FromQuery

from app.answers.feeds import ChatsPage
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.paging import LIST_PAGE, offset_page
from app.params import Limit100, Offset, Search, bad_parameter, identifier
from app.upstream import paths
from app.upstream.relay import relay

ChatFilter = Literal["priority", "pinned", "unread", "who_tipped"]
ListId = Annotated[
    int | None, identifier("Custom list id (from the lists route). Not with filter.")
]


@v1_get(
    "/v1/{account_id:int}/chats",
    permission="api_chats_list",
    tags=["chats"],
    summary="Chats (live)",
)
async def list_chats(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    limit: Limit100 = 10,
    offset: Offset = 0,
    skip_users: FromQuery[Literal["all", "none"]] = "all",
    order: FromQuery[Literal["recent", "old"]] = "recent",
    filter: FromQuery[ChatFilter | None] = None,  # noqa: A002 - the spec's parameter name
    list_id: ListId = None,
    search: Search = None,
) -> Envelope[ChatsPage]:
    """The account's chats, newest (``recent``) or oldest first; offset-paged.

    Rules: ``filter`` and ``list_id`` are mutually exclusive (400 naming ``list_id``); an
    unknown ``list_id`` is the upstream's 400.
    """
    if filter is not None and list_id is not None:
        raise bad_parameter("list_id", "mutually exclusive with filter")
    params = {
        "limit": limit,
        "offset": offset,
        "skip_users": skip_users,
        "order": order,
        "filter": filter,
        "list_id": list_id,
        "query": search or None,
    }
    payload = await relay(upstream, account, paths.CHATS, params, expect=LIST_PAGE)
    return offset_page(request, payload, limit, offset, rows="list")


ROUTES = [list_chats]
