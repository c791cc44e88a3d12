"""Paging, in one place: the next page's parameters (offset and cursor rules), its URL, and
the envelope of a page. The live routes, the store's feeds and the events feed all page
through these pieces."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from litestar import Request

from app.envelope import Envelope

#: A page's next parameters (our names), or None when it was the last page.
NextParams = dict[str, object] | None

#: ``expect`` of a relay: dotted member name -> the type(s) the route reads it as.
Shape = Mapping[str, type | tuple[type, ...]]
#: The members the paging rules read from the usual upstream wrappers.
LIST_PAGE: Shape = {"list": list, "hasMore": bool}
ITEMS_PAGE: Shape = {"items": list, "hasMore": bool}


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
