"""GET /status: the organization's sync and earnings as an HTML page, for admin keys; and the
browser's way in: a sign-in page, ``POST /status`` (an admin key opens a session) and
``POST /status/sign-out``.

Outside the gate (no credit): the key -- sent as a header, or found through the session
cookie -- is checked here, by one statement that also counts the request in the
organization's minute window (429 with Retry-After when it is full); its ledger row
(credits 0) is written when its answer has gone (``MinuteView``). It must be an admin key;
the page shows that key's organization only, from data read at most once per
``RELAY_STATUS_CACHE_SECONDS`` per organization and process (``app.status.cache``).

A browser sends no key header: without one (and without a session), a client that prefers
HTML gets the sign-in page; other clients get the JSON 401 as before. The session cookie is
HttpOnly, SameSite=Strict, limited to ``/status``, Secure over https (or with
``RELAY_STATUS_COOKIE_SECURE``), and lasts ``RELAY_STATUS_SESSION_SECONDS``; the session is
a row in PostgreSQL naming its key, and every view re-reads the key, so revoking the key
ends it. Sign-in and sign-out refuse a cross-site form (``same_origin``). Refusals answer
the sign-in page with the reason to HTML clients, ``{"error", "code"}`` to the others.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TypedDict
from urllib.parse import urlsplit

from litestar import MediaType, Request, Response, get, post
from litestar.datastructures import Cookie
from litestar.openapi.spec import Operation, SecurityRequirement
from litestar.response import Redirect
from psycopg_pool import AsyncConnectionPool

from app.errors import ApiError, error_response
from app.gate.document import ERRORS, AnswerOperation, error_spec
from app.gate.keys import KEY_PATTERN, key_digest, presented_key
from app.gate.middleware import RATE_LIMITED, UNAUTHENTICATED
from app.gate.route import SECURITY
from app.gate.state import METERED_STATE, MinuteView
from app.status.page import HEADERS, render, sign_in_page
from app.store import status as store
from app.store.status_sessions import close_session, open_session, token_digest

CHART_DAYS = 90
PATH = "/status"
#: The session cookie (sent back to /status and below only).
COOKIE = "relay_status_session"

NOT_ADMIN = "the status page needs an admin key"
SESSION_ENDED = "your session has ended (expired, signed out, or its key was revoked): sign in again"
CROSS_SITE = "a sign-in or sign-out from another site is refused: use the form on this page"


def wants_html(request: Request) -> bool:
    """The client prefers HTML to JSON (a browser; ``*/*`` and no Accept mean JSON)."""
    return request.accept.best_match(["application/json", "text/html"]) == "text/html"


def same_origin(headers: Mapping[str, str]) -> bool:
    """A form posted from this site, not from another one (so another site cannot sign a
    browser in or out). Browsers say where a request comes from in ``Sec-Fetch-Site``, which
    no page can set; older ones send ``Origin`` (``null`` under the pages' ``no-referrer``
    policy, where Chromium sends it beside ``Sec-Fetch-Site``), whose host must be ours: the
    host is compared, not the scheme (a TLS proxy may stand in front), so a proxy must pass
    the ``Host`` header on. A client that sends neither is not a browser: it has no cookie
    of anyone else to use."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = headers.get("origin")
    if origin is None:
        return True
    return origin != "null" and urlsplit(origin).netloc == headers.get("host")


def _page(html: str, status: int = 200, headers: Mapping[str, str] | None = None) -> Response[str]:
    return Response(html, status_code=status, media_type="text/html", headers={**HEADERS, **(headers or {})})


def _sign_in(request: Request, message: str | None = None, status: int = 200, **headers: str) -> Response[str]:
    minutes = max(request.app.state.settings.status_session_seconds // 60, 1)
    return _page(sign_in_page(message, minutes), status, headers)


def _refusal(request: Request, exc: ApiError) -> Response:
    """The status routes' refusals: the sign-in page with the reason for a browser."""
    if wants_html(request):
        return _sign_in(request, exc.message, exc.status, **exc.headers)
    return error_response(exc.status, exc.message, exc.code, exc.headers)


def _admit(request: Request, viewer: store.Viewer | None) -> store.Viewer:
    """The viewer if its request may go on: a known key, counted in its organization's
    minute window (the ledger row follows the answer), with the admin role."""
    if viewer is None:
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    if not viewer.counted:
        retry_after = max(math.ceil(60 - viewer.at % 60), 1)  # the minute window's end
        raise ApiError(429, RATE_LIMITED, "rate_limited", headers={"Retry-After": str(retry_after)})
    # Its ledger row is written by the app's middleware, with the final status.
    request.scope["state"][METERED_STATE] = MinuteView(
        viewer.organization_id, viewer.key_id, viewer.at, request.scope, request.app.state.gate.ledger
    )
    if viewer.role != "admin":
        raise ApiError(403, NOT_ADMIN, "forbidden")
    return viewer


def _refusals(*statuses: int) -> dict:
    """The document's error answers of a status route (its key check is its own)."""
    own = {
        401: ERRORS[401],
        403: ("Not an admin key, or a form from another site.", {"error": NOT_ADMIN, "code": "forbidden"}),
        429: ("The organization's minute window is full; see Retry-After.", ERRORS[429][1]),
        503: ERRORS[503],
    }
    return {status: error_spec(status, *own[status]) for status in statuses}


class _Documented(TypedDict):
    operation_class: type[Operation]
    security: list[SecurityRequirement]


#: The routes' document: their answers and each answer's headers (``app.gate.document``).
DOCUMENTED: _Documented = {"operation_class": AnswerOperation, "security": SECURITY}


@get(PATH, tags=["system"], summary="Status page (HTML, admin keys)", exception_handlers={ApiError: _refusal},
     media_type=MediaType.HTML, responses=_refusals(401, 403, 429, 503), **DOCUMENTED)
async def status_page(request: Request) -> Response[str]:
    """Per account and resource: coverage, lag, last run, last error and backfill progress,
    and a 90-day chart of net earnings from the store. Needs an admin key (a header, or the
    session a browser opens on the sign-in page); counts against the organization's minute
    window (no credit). Without either, a client that prefers HTML gets the sign-in page."""
    key = presented_key(request.headers)
    token = request.cookies.get(COOKIE) if key is None else None
    if key is None and not token:
        if wants_html(request):
            return _sign_in(request)
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    state = request.app.state
    async with state.pool.connection() as conn:
        if key is not None:
            viewer = await store.viewer(conn, key_digest(key))
        else:
            assert token  # a request with neither was answered above
            viewer = await store.session_viewer(conn, token_digest(token))
    if viewer is None and key is None:  # the session is over: forget its cookie
        response = _sign_in(request, SESSION_ENDED) if wants_html(request) else _refusal(
            request, ApiError(401, UNAUTHENTICATED, "unauthenticated")
        )
        response.delete_cookie(COOKIE, path=PATH)
        return response
    viewer = _admit(request, viewer)
    reads = await state.status_reads.get(viewer.organization_id, lambda: _read(state.pool, viewer.organization_id))
    return _page(render(viewer, reads, datetime.now(UTC), session=key is None))


@post(PATH, tags=["system"], summary="Sign in to the status page (HTML form)", status_code=303,
      exception_handlers={ApiError: _refusal}, responses=_refusals(401, 403, 429, 503), **DOCUMENTED)
async def sign_in(request: Request) -> Redirect:
    """The sign-in form's ``key``: an admin key opens a session (a cookie) and the browser is
    sent to ``GET /status``. Counted in the key's organization's minute window like a view."""
    if not same_origin(request.headers):
        raise ApiError(403, CROSS_SITE, "cross_site")
    key = (await request.form()).get("key", "")
    key = key.strip() if isinstance(key, str) else ""
    if not KEY_PATTERN.fullmatch(key):
        raise ApiError(401, "form field 'key' must be an API key (crk_live_ and 43 more characters)", "unauthenticated")
    settings = request.app.state.settings
    async with request.app.state.pool.connection() as conn:
        viewer = _admit(request, await store.viewer(conn, key_digest(key)))
        token = await open_session(conn, viewer.key_id, settings.status_session_seconds)
    cookie = Cookie(
        key=COOKIE, value=token, path=PATH, max_age=settings.status_session_seconds, httponly=True,
        samesite="strict", secure=settings.status_cookie_secure or request.url.scheme == "https",
    )
    return Redirect(PATH, status_code=303, cookies=[cookie], headers=HEADERS)


@post(f"{PATH}/sign-out", tags=["system"], summary="Sign out of the status page", status_code=303,
      exception_handlers={ApiError: _refusal}, responses=_refusals(403, 503), **DOCUMENTED)
async def sign_out(request: Request) -> Redirect:
    """Ends this browser's session (if any) and sends it back to the sign-in page."""
    if not same_origin(request.headers):
        raise ApiError(403, CROSS_SITE, "cross_site")
    token = request.cookies.get(COOKIE)
    if token:
        async with request.app.state.pool.connection() as conn:
            await close_session(conn, token)
    response = Redirect(PATH, status_code=303, headers=HEADERS)
    response.delete_cookie(COOKIE, path=PATH)
    return response


async def _read(pool: AsyncConnectionPool, organization_id: int) -> store.StatusReads:
    async with pool.connection() as conn:
        return await store.status_reads(conn, organization_id, CHART_DAYS)


ROUTES = [status_page, sign_in, sign_out]
