"""The organization's change events, oldest first (docs/events.md).

GET /v1/events  (api_events_list)
"""

from __future__ import annotations

from typing import Annotated

from litestar import Request
from litestar.params import Parameter

from app.answers.feeds import EventsPage
from app.envelope import Envelope
from app.events import feed as events
from app.events.types import Cursor, event_json, parse_types
from app.gate import v1_get
from app.gate.state import current_gate
from app.paging import next_page_url
from app.params import bad_parameter, rule_pattern, whole_value

After = Annotated[
    str | None,
    Parameter(
        max_length=40,
        pattern=rule_pattern(whole_value(r"[0-9]{1,19}\.[0-9]{1,19}"), 'must be a cursor "<tx>.<id>" from a previous page'),
        description='Cursor: the "cursor" of the last event you have (data.cursor of the previous '
        'page); omitted: from the oldest event kept.',
    ),
]
Types = Annotated[
    str | None,
    Parameter(max_length=1000, pattern=rule_pattern(whole_value("[A-Za-z0-9_., -]*"), "must be comma-separated event type names"), description="Comma-separated event types; omitted: every type."),
]


@v1_get("/v1/events", permission="api_events_list", tags=["events"], summary="Events feed")
async def list_events(
    request: Request,
    after: After = None,
    limit: Annotated[int, Parameter(ge=1, le=1000, description="Page size.")] = 100,
    type: Types = None,  # noqa: A002 - the parameter's name in the URL
) -> Envelope[EventsPage]:
    """Events of the caller's organization after ``after``, oldest first.

    ``data.cursor`` is where to continue (the last event's cursor, or ``after`` itself when
    the page is empty): poll with ``after=data.cursor`` and no event is missed or repeated.
    """
    cursor = Cursor.parse(after)
    if cursor is None:
        raise bad_parameter("after", 'must be a cursor "<tx>.<id>" from a previous page')
    try:
        types = parse_types(type)
    except ValueError as exc:
        raise bad_parameter("type", str(exc)) from None
    key_id = current_gate().result.key_id
    assert key_id is not None  # past the gate: the key was found
    async with request.app.state.pool.connection() as conn:
        rows = await events.feed(conn, key_id, cursor, limit + 1, types)
    more = len(rows) > limit
    items = [event_json(row) for row in rows[:limit]]
    following = items[-1]["cursor"] if items else str(cursor)
    data = {"list": items, "hasMore": more, "cursor": following}
    return Envelope.page(data, next_page_url(request, {"after": following, "limit": limit} if more else None))


ROUTES = [list_events]
