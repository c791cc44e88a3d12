"""Paging, in one place: the next page's parameters (offset, cursor and marker rules), its
URL, the envelope of a page, and pages that never split a tie. The live routes, the
store's feeds and the events feed all page through these pieces (the offset pages the
store reads by ordinal are its query: ``app/store/snapshot.py``)."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar
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


def marker_next(body: Mapping[str, Any], *, member: str, param: str, **pinned: object) -> NextParams:
    """Marker paging: ``param`` of the next page is the answer's own ``member`` (the earnings
    ``nextMarker``, the posts ``tailMarker``), beside the ``pinned`` parameters every page
    must repeat; None when the answer says it is the last page or names no marker."""
    marker = body.get(member)
    if not body.get("hasMore") or marker is None or marker == "":
        return None
    return {**pinned, param: marker}


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
    for name, value in query_pairs(request):
        if name in pending:
            pairs.append((name, pending.pop(name)))
        elif name not in changes:  # a repeated paging parameter is written once
            pairs.append((name, value))
    pairs.extend(pending.items())
    # The path as the server received it, without parsing the whole URL (request.url).
    path = request.scope.get("root_path", "") + request.scope["path"]
    return f"{path}?{'&'.join([f'{_encoded(name)}={_encoded(value)}' for name, value in pairs])}"


def query_pairs(request: Request) -> list[tuple[str, str]]:
    """The request's query as (name, value) pairs, as ``request.query_params`` reads them
    (``parse_qsl``: pairs without ``=`` or with an empty value left out). A query with
    nothing to decode -- ASCII, no ``%``, no ``+``, the common case -- is split here: parsing
    it for every paged answer was a measurable part of a store page."""
    raw: bytes = request.scope["query_string"]
    if not raw.isascii() or b"%" in raw or b"+" in raw:
        return list(request.query_params.multi_items())
    pairs = []
    for pair in raw.decode("ascii").split("&"):
        name, equals, value = pair.partition("=")
        if equals and value:
            pairs.append((name, value))
    return pairs


#: Characters that stand for themselves in a query value (RFC 3986 "unreserved").
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*\Z")


def _encoded(text: str) -> str:
    """``text`` percent-encoded, every reserved character included. It runs for every
    parameter of every paged answer: most names and values need nothing (a regex says so
    faster than ``quote`` does); the others repeat (a page's window start), so their
    answers are kept -- and only theirs: a marker differs on every page and would only
    push them out of the cache."""
    return text if _UNRESERVED.match(text) else _quoted(text)


@functools.lru_cache(maxsize=4096)
def _quoted(text: str) -> str:
    return quote(text, safe="")


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


# --- pages that never split a tie ------------------------------------------------------
#
# Pages that never split a tie: the rule behind every cursor a client rebuilds by hand.
#
# The spec's cursors name a value of the page's last row (the earnings ``nextMarker`` second,
# the posts ``tailMarker``, the direct-messages ``date``), and the next page holds the rows
# strictly beyond that value. That is exact only if no page ends inside a group of rows that
# share the value (a *tie*), so no page does (issue 17, docs/api-decisions.md):
#
# - when the row after a full page shares the page's last value, the page ends before that
#   value (the group opens the next page whole);
# - when the whole page is one value with more rows of it after, the page takes the whole
#   group along (it then holds more rows than asked for).
#
# ``whole_groups`` applies the rule to rows the caller has already read (one more than the
# page, to see a split). ``whole_live_page`` reads them from an upstream whose own cursor has
# the flaw (strictly beyond a value, no tie-breaker): it asks for one more row than the page,
# and completes a busy group by asking again with an inclusive bound and keeping only that
# group. An upstream request returns at most ``max_ask`` rows, so a group larger than that
# cannot be read whole; that is logged (the upstream's limit, docs/api-decisions.md).

Row = TypeVar("Row")
Key = TypeVar("Key", bound=Hashable)
log = logging.getLogger(__name__)


def whole_groups(
    rows: Sequence[Row], size: int, key: Callable[[Row], Key]
) -> tuple[list[Row], Key | None]:
    """A page of at most ``size`` rows out of ``rows`` (in page order, up to ``size + 1`` of
    them) that does not split a group of equal ``key``. Returns the page and, when the page
    is one group with more rows after it, that group's key: the caller must add the rest."""
    if len(rows) <= size or key(rows[size - 1]) != key(rows[size]):
        return list(rows[:size]), None
    split = key(rows[size - 1])
    if key(rows[0]) != split:
        return [r for r in rows[:size] if key(r) != split], None
    return list(rows[:size]), split


#: One upstream read of the page's window, in page order: ``fetch(limit)`` reads after the
#: client's cursor; ``fetch(limit, through=k)`` reads from key ``k`` inclusive (the rows of
#: that group first, then what follows). Returns the rows and the upstream's ``hasMore``.
Fetch = Callable[..., Awaitable[tuple[list, bool]]]


async def whole_live_page(
    fetch: Fetch, limit: int, key: Callable[[Row], Hashable], *, max_ask: int = 100
) -> tuple[list[Row], bool]:
    """One page of at most ``limit`` rows (more only for one busy group) that ends between
    groups, read through ``fetch``; returns the page and whether rows follow it."""
    rows, more = await fetch(min(limit + 1, max_ask))
    if len(rows) <= limit and more and rows:
        # limit == max_ask: the row after the page was not seen. Re-read the last group from
        # its first row, one row more than the page holds of it, to see whether it goes on.
        tail = key(rows[-1])
        held = sum(1 for r in rows if key(r) == tail)
        if held == max_ask:
            _lost(tail)
            return rows, more
        look, _ = await fetch(held + 1, through=tail)
        rows = rows[:-held] + look
    if len(rows) <= limit:
        return rows, more
    page, split = whole_groups(rows, limit, key)
    if split is None:
        return page, True
    group, group_more = await fetch(max_ask, through=split)
    same = [r for r in group if key(r) == split]
    if len(same) == max_ask and group_more:
        _lost(split)
    return same, len(same) < len(group) or group_more


def _lost(value: Hashable) -> None:
    log.warning("more rows share %r than one upstream request returns: the rest of them cannot be paged to", value)
