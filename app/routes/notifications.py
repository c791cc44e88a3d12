"""Notifications and mark-read, live from the upstream.

GET  /v1/{account_id}/notifications               (api_notifications_list)
POST /v1/{account_id}/notifications/{type}/read   (api_notifications_mark_read)
"""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Request
from litestar.params import FromPath, FromQuery

from app.answers.charts import MarkReadResult
from app.answers.feeds import NotificationsPage
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get, v1_post
from app.paging import LIST_PAGE, cursor_next, live_page
from app.params import Limit100, identifier
from app.upstream import paths
from app.upstream.relay import relay

#: Categories the list route filters by (the spec's list).
ListedCategory = Literal[
    "subscribed", "paided_message", "purchases", "tip", "tags", "commented",
    "mentioned", "favorited", "message", "system", "deactivated_media",
]
#: Categories mark-read accepts: the spec's list for this route, which is shorter (no
#: ``paided_message``, no ``system``). ``all`` is in neither list, so it is refused.
MarkableCategory = Literal[
    "subscribed", "purchases", "tip", "tags", "commented", "mentioned", "favorited",
    "message", "deactivated_media",
]
FromId = Annotated[int | None, identifier("Cursor: the last notification id of the previous page.")]


@v1_get(
    "/v1/{account_id:int}/notifications",
    permission="api_notifications_list",
    tags=["notifications"],
    summary="Notifications (live)",
)
async def list_notifications(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    limit: Limit100 = 10,
    type: FromQuery[ListedCategory | None] = None,  # noqa: A002 - the spec's parameter name
    from_id: FromId = None,
) -> Envelope[NotificationsPage]:
    """Newest first; the next page starts after the last id of this one (``from_id``)."""
    params = {"limit": limit, "type": type, "from_id": from_id}
    payload = await relay(upstream, account, paths.NOTIFICATIONS, params, expect=LIST_PAGE)
    rows, more = payload["list"], payload["hasMore"]
    following = cursor_next(limit, rows, more, param="from_id", member="id")
    return live_page(request, payload, following)


@v1_post(
    "/v1/{account_id:int}/notifications/{type:str}/read",
    permission="api_notifications_mark_read",
    status_code=200,
    tags=["notifications"],
    summary="Mark a notification category read (live)",
)
async def mark_read(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    type: FromPath[MarkableCategory],  # noqa: A002 - the spec's path parameter name
) -> Envelope[MarkReadResult]:
    """Marks every notification of the category read; returns the updated counters.

    The route takes no body. One sent anyway is ignored; past the size limit it is a 413
    (the gate reads the body of every route, so the limit holds here too).
    """
    payload = await relay(
        upstream, account, paths.NOTIFICATIONS_MARK_READ, method="POST",
        path_params={"type": type}, expect={"counters": dict},
    )
    return live_page(request, payload)


ROUTES = [list_notifications, mark_read]
