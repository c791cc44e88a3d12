"""The creator's post feed, served from the store.

GET /v1/{account_id}/posts  (api_posts_list)
"""

from __future__ import annotations

from typing import Annotated

from litestar import Request
from litestar.params import FromQuery, QueryParameter

from app.answers.feeds import PostsPage
from app.envelope import Envelope
from app.gate import v1_get
from app.gate.readers import READER
from app.paging import marker_next
from app.params import (
    BIGINT_MAX,
    BIGINT_SCHEMA,
    LABEL_PATTERN,
    LABEL_RULE,
    TAIL_MARKER_PATTERN,
    TAIL_MARKER_RULE,
    bad_parameter,
    text,
)
from app.store import posts
from app.store.source import StoreReader

PostsLimit = Annotated[
    int, QueryParameter(ge=1, le=BIGINT_MAX, schema_extra=BIGINT_SCHEMA, description="Page size, at least 1; above 100 is clamped to 100.")
]
Label = Annotated[str | None, QueryParameter(pattern=LABEL_PATTERN, description=f"Label: {LABEL_RULE}.")]
Cursor = Annotated[
    str | None,
    QueryParameter(pattern=TAIL_MARKER_PATTERN, description=f"The previous page's tailMarker; {TAIL_MARKER_RULE}."),
]


@v1_get(
    "/v1/{account_id:int}/posts",
    permission="api_posts_list",
    provides=READER,
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
    search: Annotated[str | None, text("Case-insensitive text in captions.", name="query")] = None,
    pinned: FromQuery[bool | None] = None,
    order: FromQuery[posts.Order] = "publish_date_desc",
    counters: FromQuery[bool] = True,
    before_publish_time: Cursor = None,
    after_publish_time: Cursor = None,
) -> Envelope[PostsPage]:
    """The feed in one of five orders, cursor-paged by tailMarker.

    Rules: descending orders page with ``before_publish_time``, ascending ones
    (``publish_date_asc``, ``tips_summ_asc``) with ``after_publish_time``: the other cursor
    is a 400 naming it. For the value orders (favorites, tips) the cursor must be the
    tailMarker of a post (else 400). ``limit`` above 100 is clamped to 100.
    """
    wanted = posts.cursor_parameter(order)
    for name, value in (("before_publish_time", before_publish_time), ("after_publish_time", after_publish_time)):
        if value and name != wanted:
            raise bad_parameter(name, f"not allowed with order={order}; use {wanted}")
    parsed = posts.PostsQuery.parse(
        order=order, limit=limit, media_type=media_type, label=label, exclude_label=exclude_label,
        text=search, pinned=pinned, counters=counters,
        before_publish_time=before_publish_time, after_publish_time=after_publish_time,
    )
    sourced = await posts.feed(reader, parsed)
    following = marker_next(sourced.data, member="tailMarker", param=posts.cursor_parameter(parsed.order),
                            limit=parsed.limit, order=parsed.order)
    return sourced.envelope(request, following)


ROUTES = [list_posts]
