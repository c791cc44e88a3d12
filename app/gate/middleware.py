"""The gate's ASGI middleware: authentication, rate limit, permission and account, in that
order, and the response side of metering.

Litestar has routed the request when the middleware runs, so the route handler (and the
permission ``v1_get``/``v1_post`` put in its ``opt``) and the parsed path parameters are
in the scope. Routes without a permission (health, the documentation) pass through. For a
gated route it reads the key from the raw headers, meters the request (one gate statement,
shared with the process's concurrent requests: ``app.gate.batching``) and refuses:

1. 401 -- no key, a malformed key, an unknown or revoked key (nothing counted, 0 credits);
2. 429 -- the organization's minute or day window is full (nothing counted, 0 credits);
3. 403 -- the key's role does not grant the route's permission (1 credit);
4. 404 -- the route's ``account_id`` is not connected to the key's organization, whether or
   not another organization has it: the same answer, so nothing leaks (1 credit).

A refusal is an ``ApiError`` raised here; the middleware runs inside Litestar's exception
handling, so it becomes the same ``{"error", "code"}`` response as any other error, with
its headers. Validation (400, 413) and credits (402) follow in the route's post-validation
step (``app.gate.route``).

On the way out it adds the rate limits and the credits used to the headers of every
metered response and hands the final status to the ledger's ``StatusRecorder``.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import ApiError
from app.gate.keys import digests_match, key_digest, presented_key
from app.gate.state import PERMISSION_OPT, GateState, open_gate
from app.gate.statement import GateResult, MeterRequest
from app.metrics import GATE_REFUSALS
from app.request_id import request_id

UNAUTHENTICATED = "missing, invalid or revoked API key (send Authorization: Bearer <key> or X-API-Key: <key>)"

_KEY_HEADERS = (b"authorization", b"x-api-key")
_BODY_HEADERS = (b"content-length", b"transfer-encoding")


def rate_limit_headers(result: GateResult) -> list[tuple[bytes, bytes]]:
    """The limits and the credits used as response headers (names and values as bytes)."""
    return [
        (b"x-ratelimit-limit-minute", b"%d" % result.limit_minute),
        (b"x-ratelimit-remaining-minute", b"%d" % max(result.limit_minute - result.minute_used, 0)),
        (b"x-ratelimit-limit-day", b"%d" % result.limit_day),
        (b"x-ratelimit-remaining-day", b"%d" % max(result.limit_day - result.day_used, 0)),
        (b"x-credits-used", b"1" if result.counted else b"0"),
    ]


def refusal(result: GateResult, digest: bytes, permission: str, account_id: int | None) -> ApiError | None:
    """The gate's answer when it refuses the request (in the order of checks), else None."""
    if not result.authenticated or not digests_match(result.key_hash or b"", digest):
        return ApiError(401, UNAUTHENTICATED, "unauthenticated")
    if result.counted and result.permitted and result.verdict != 404:
        return None  # admitted: the common case builds nothing
    headers = {name.decode(): value.decode() for name, value in rate_limit_headers(result)}
    if not result.counted:
        return ApiError(
            429,
            "rate limit exceeded for this organization; retry after the window resets",
            "rate_limited",
            headers={**headers, "Retry-After": str(result.retry_after())},
        )
    if not result.permitted:
        message = f"this key's role does not grant the permission {permission!r}"
        return ApiError(403, message, "forbidden", headers=headers)
    if result.verdict == 404:
        message = f"account {account_id} is not connected to this organization"
        return ApiError(404, message, "account_not_found", headers=headers)
    return None


def _read_headers(scope: Scope) -> tuple[str | None, bool]:
    """The key the request carries (or None) and whether it announces a body, from the
    scope's raw header list (ASGI names are lower case; the first of each key header wins)."""
    found: dict[str, str] = {}
    has_body = False
    for name, value in scope["headers"]:
        if name in _KEY_HEADERS:
            found.setdefault(name.decode("latin-1"), value.decode("latin-1"))
        elif name in _BODY_HEADERS:
            has_body = True
    return presented_key(found), has_body


def gate_middleware(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        permission = scope["route_handler"].opt.get(PERMISSION_OPT) if scope["type"] == "http" else None
        if permission is None:
            await app(scope, receive, send)
            return

        key, has_body = _read_headers(scope)
        if key is None:
            GATE_REFUSALS.labels(401).inc()
            raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
        digest = key_digest(key)
        account_id = scope["path_params"].get("account_id")
        state = Litestar.from_scope(scope).state
        result: GateResult = await state.meter(
            MeterRequest.of(
                digest, permission, account_id, scope["method"], scope["path_template"], request_id.get()
            )
        )
        error = refusal(result, digest, permission, account_id)
        if error is not None:
            GATE_REFUSALS.labels(error.status).inc()
            raise error  # 403/404 verdicts are in the ledger row already; 401/429 have none

        extra = rate_limit_headers(result)
        status = 500

        async def send_with_limits(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        try:
            with open_gate(GateState(result, account_id, scope, receive, has_body)):
                await app(scope, receive, send_with_limits)
        finally:
            if result.ledger_id is not None:
                state.ledger_statuses.record(result.ledger_id, status)

    return middleware
