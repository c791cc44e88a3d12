"""The creator's post feed, served from the store.

GET /v1/{account_id}/posts  (api_posts_list)
"""

from __future__ import annotations

from typing import Annotated

from litestar import Request
from litestar.params import FromQuery, Parameter, QueryParameter

from app.envelope import Envelope
from app.gate import v1_get
from app.store import posts
from app.store.source import READER, StoreReader

PostsLimit = Annotated[int, Parameter(ge=1, description="Page size, at least 1; above 100 is clamped to 100.")]
Label = Annotated[str | None, Parameter(description="Numeric label id, archived or private_archived.")]
Cursor = Annotated[str | None, Parameter(description="The previous page's tailMarker.")]


@v1_get(
    "/v1/{account_id:int}/posts",
    permission="api_posts_list",
    dependencies=READER,
    tags=["posts"],
    summary="Posts (store)",
)
async def list_posts(
    request: Request,
    reader: StoreReader,
    limit: PostsLimit = 10,
    media_type: FromQuery[posts.MediaType | None] = None,
    label: Label = None,
    exclude_label: Label = None,
    # ``query`` is Litestar's name for the whole query string: bind the parameter by alias.
    text: Annotated[str | None, QueryParameter(name="query", description="Case-insensitive text in captions.")] = None,
    pinned: FromQuery[bool | None] = None,
    order: FromQuery[posts.Order] = "publish_date_desc",
    counters: FromQuery[bool] = True,
    before_publish_time: Cursor = None,
    after_publish_time: Cursor = None,
) -> Envelope:
    """The feed in one of five orders, cursor-paged by tailMarker."""
    parsed = posts.PostsQuery.parse(
        order=order, limit=limit, media_type=media_type, label=label, exclude_label=exclude_label,
        text=text, pinned=pinned, counters=counters,
        before_publish_time=before_publish_time, after_publish_time=after_publish_time,
    )
    sourced = await posts.feed(reader, parsed)
    return sourced.envelope(request, posts.feed_next(sourced.data, parsed))


ROUTES = [list_posts]
