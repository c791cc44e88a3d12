"""Live routes: one upstream call, its payload passed through, and the link to the next page.

Every live route handler does the same three things, each a piece here:

1. ``relay(...)``: make the one upstream call through the shared client (holding one of the
   organization's live-call shares, ``app.gate.shares``) and check that the
   payload has the members we are about to read, of the types we read them as (``expect``).
   A payload of another shape is the upstream failing, not our bug: it raises
   ``UpstreamBadBody`` (-> 424), never a 500;
2. a paging rule turns the payload into the next page's parameters, or None on the last
   page: ``offset_next`` (offset paging), ``cursor_next`` (a value taken from the page's
   last item: the direct-messages date, the notifications id);
3. ``next_page_url(request, changes)`` writes the next page's relative URL.

The payload itself is never rebuilt: what the upstream sent goes into ``data`` as it is.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from litestar import Request

from app.envelope import Envelope
from app.errors import ApiError
from app.gate.shares import LIVE_CALLS, take_for_request
from app.gate.state import current_gate
from app.store import credentials
from app.upstream.client import UpstreamAccount, UpstreamClient
from app.upstream.errors import UpstreamBadBody

#: A page's next parameters (our names), or None when it was the last page.
NextParams = dict[str, object] | None

#: ``expect`` of a relay: dotted member name -> the type(s) the route reads it as.
Shape = Mapping[str, type | tuple[type, ...]]
#: The members the paging rules read from the usual upstream wrappers.
LIST_PAGE: Shape = {"list": list, "hasMore": bool}
ITEMS_PAGE: Shape = {"items": list, "hasMore": bool}


async def relay(
    upstream: UpstreamClient,
    account: UpstreamAccount | None,
    path: str,
    params: Mapping[str, Any] | None = None,
    *,
    method: str = "GET",
    path_params: Mapping[str, object] | None = None,
    expect: Shape | None = None,
) -> dict[str, Any]:
    """The one upstream call of a live route; returns the upstream's JSON object untouched.

    ``params`` use the upstream's names; None values are not sent (the client drops them).
    ``expect`` names the members the route reads (for paging) and their types: if the
    upstream answers with something else, the call failed as far as the caller is concerned.
    The call holds one of the organization's live-call shares (429 ``concurrency_limit``
    past it): a slow upstream of one organization cannot take the shared upstream pool.
    """
    with take_for_request(LIVE_CALLS):
        payload = await upstream.request_json(
            method, account, path, path_params=path_params, params=params
        )
    unexpected = _unexpected_member(payload, expect or {})
    if unexpected is not None:
        raise UpstreamBadBody(
            f"The upstream platform sent an answer of an unexpected shape ({unexpected!r})."
        )
    return payload


def _unexpected_member(payload: object, expect: Shape) -> str | None:
    """The first expected member a payload lacks or has with another type ('object' when
    the payload is not an object at all); None when it has the expected shape."""
    if not isinstance(payload, dict):
        return "object"
    for dotted, kind in expect.items():
        node: object = payload
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return dotted
            node = node[part]
        if not isinstance(node, kind):
            return dotted
    return None


# --- the credential of account-less routes ----------------------------------------------

async def organization_credential(request: Request) -> UpstreamAccount:
    """An upstream credential of the calling organization, for routes without an account.

    424 when the organization has no connected account: without one the upstream cannot
    be reached at all (the same status as an upstream that refuses the credential).
    """
    key_id = current_gate().result.key_id  # set by the gate middleware
    async with request.app.state.pool.connection() as conn:
        account = await credentials.organization_credential(conn, key_id)
    if account is None:
        raise ApiError(
            424,
            "no account is connected to this organization: the upstream GIF proxy needs the "
            "credential of a connected account",
            "no_connected_account",
        )
    return credentials.readable(request.app.state.keyring, account.account_id, account.token)


# --- paging rules ---------------------------------------------------------------------


def offset_next(limit: int, offset: int, rows: Sequence[object], has_more: bool) -> NextParams:
    """Offset paging: the next page starts after the rows this one returned.

    Advancing by the rows received (not by ``limit``) never skips a row if the upstream
    serves fewer rows than asked for; a page that says "more" but brings no rows cannot
    advance, so it ends the paging rather than repeating itself forever.
    """
    if not has_more or not rows:
        return None
    return {"limit": limit, "offset": offset + len(rows)}


def cursor_next(
    limit: int,
    rows: Sequence[Mapping[str, Any]],
    has_more: bool,
    *,
    param: str,
    member: str,
    convert: Callable[[Any], object] = lambda value: value,
) -> NextParams:
    """Cursor paging: ``param`` of the next page is ``member`` of this page's last row."""
    last = rows[-1] if rows else None
    if not has_more or not isinstance(last, Mapping) or last.get(member) is None:
        return None
    return {"limit": limit, param: convert(last[member])}


# --- the next page's URL ----------------------------------------------------------------


def next_page_url(request: Request, changes: NextParams) -> str | None:
    """The relative URL (path and query) of the next page, or None when there is none.

    It is the caller's own query with the paging parameters set: the filters the caller
    chose (``filter``, ``query``, ``type``, dates...) must hold on every page, or page two
    would answer another question. Values are percent-encoded (a space is ``%20``, a ``+``
    of a UTC offset ``%2B``), so every value comes back exactly as it was sent.
    """
    if changes is None:
        return None
    pending = {name: str(value) for name, value in changes.items()}
    pairs: list[tuple[str, str]] = []
    for name, value in request.query_params.multi_items():
        if name in pending:
            pairs.append((name, pending.pop(name)))
        elif name not in changes:  # a repeated paging parameter is written once
            pairs.append((name, value))
    pairs.extend(pending.items())
    # The path as the server received it, without parsing the whole URL (request.url).
    path = request.scope.get("root_path", "") + request.scope["path"]
    return f"{path}?{'&'.join(f'{_encoded(name)}={_encoded(value)}' for name, value in pairs)}"


#: Characters that stand for themselves in a query value (RFC 3986 "unreserved").
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*\Z")


@functools.lru_cache(maxsize=4096)
def _encoded(text: str) -> str:
    """``text`` percent-encoded, every reserved character included. It runs for every
    parameter of every paged answer: most names and values need nothing (a regex says so
    faster than ``quote`` does), and the others repeat (a page's window start), so the
    answers are kept."""
    return text if _UNRESERVED.match(text) else quote(text, safe="")


# --- the response -------------------------------------------------------------------------


def live_page(request: Request, payload: Any, following: NextParams = None) -> Envelope:
    """The envelope of a live route: the upstream payload as ``data``, and the next page.

    The gate adds ``_meta`` after the handler returns.
    """
    return Envelope.page(payload, next_page_url(request, following))


def offset_page(
    request: Request, payload: dict[str, Any], limit: int, offset: int, *, rows: str
) -> Envelope:
    """The envelope of an offset-paged upstream list whose rows are ``payload[rows]``."""
    following = offset_next(limit, offset, payload[rows], payload["hasMore"])
    return live_page(request, payload, following)
