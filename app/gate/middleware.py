"""The gate's ASGI middleware: authentication, rate limit, permission and account, in that
order, and the response side of metering.

Litestar has routed the request when the middleware runs, so the route handler (and the
permission its ``opt`` declares) and the parsed path parameters are in the scope. Routes
that declare no permission (health, the API documentation) pass through untouched. For a
gated route the middleware reads the key from the scope's raw headers and runs the gate
statement (one database round trip, shared with the process's concurrent requests, see
``app.gate.metering``). It then refuses, in the documented order:

1. 401 -- no key, a malformed key, an unknown or revoked key (nothing counted, 0 credits);
2. 429 -- the organization's minute or day window is full (nothing counted, 0 credits);
3. 403 -- the key's role does not grant the route's permission (1 credit);
4. 404 -- the route's ``account_id`` is not connected to the key's organization, whether or
   not another organization has it: the same answer, so nothing leaks (1 credit).

A refusal is raised inside Litestar's exception middleware, so it becomes the same
``{"error", "code"}`` response through the app's exception handlers as any other error.
Validation (400, 413) comes next, in Litestar's own parameter parsing, then credits (402),
in the post-validation step (``app.gate.install``).

On the way out it puts the rate limits and the credits used in the response headers of
every metered response (successes, errors past authentication, 429s) and hands the final
status to the ledger's ``StatusRecorder``.

These checks were a Litestar guard; a guard is called with a copy of the route handler on
every request (of every route, the guard being app-wide), which cost more than the checks.
"""

from __future__ import annotations

from litestar._asgi.utils import wrap_in_exception_handler
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import ApiError
from app.gate.keys import digests_match, key_digest, presented_key
from app.gate.metering import GateResult, MeterRequest
from app.gate.state import PERMISSION_OPT, GateState, _current

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
    if not result.counted:
        return ApiError(
            429,
            "rate limit exceeded for this organization; retry after the window resets",
            "rate_limited",
            headers={"Retry-After": str(result.retry_after())},
        )
    if not result.permitted:
        return ApiError(403, f"this key's role does not grant the permission {permission!r}", "forbidden")
    if result.verdict == 404:
        return ApiError(404, f"account {account_id} is not connected to this organization", "account_not_found")
    return None


_REFUSAL = "relay.gate.refusal"


async def _raise_refusal(scope: Scope, receive: Receive, send: Send) -> None:
    raise scope[_REFUSAL]  # type: ignore[literal-required,misc]


#: Turns the refusal into its response through the app's exception handlers.
_refuse = wrap_in_exception_handler(_raise_refusal)


def gate_middleware(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        permission = scope["route_handler"].opt.get(PERMISSION_OPT) if scope["type"] == "http" else None
        if permission is None:
            await app(scope, receive, send)
            return

        # The key's two headers (the first occurrence of each) and whether a body is announced,
        # from the scope's raw header list (ASGI names are lower case).
        found: dict[str, str] = {}
        has_body = False
        for name, value in scope["headers"]:
            if name in _KEY_HEADERS:
                found.setdefault(name.decode("latin-1"), value.decode("latin-1"))
            elif name in _BODY_HEADERS:
                has_body = True
        key = presented_key(found)
        if key is None:
            scope[_REFUSAL] = ApiError(401, UNAUTHENTICATED, "unauthenticated")  # type: ignore[literal-required]
            await _refuse(scope, receive, send)
            return

        digest = key_digest(key)
        account_id = scope["path_params"].get("account_id")
        result: GateResult = await scope["litestar_app"].state.meter(
            MeterRequest(digest, permission, account_id, scope["method"], scope["path_template"])
        )
        extra = rate_limit_headers(result) if result.authenticated else None
        status = 500

        async def send_with_limits(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                if extra is not None:
                    message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        try:
            error = refusal(result, digest, permission, account_id)
            if error is not None:
                scope[_REFUSAL] = error  # type: ignore[literal-required]
                await _refuse(scope, receive, send_with_limits)
                return
            token = _current.set(GateState(result, account_id, scope, receive, has_body))
            try:
                await app(scope, receive, send_with_limits)
            finally:
                _current.reset(token)
        finally:
            # 403/404 verdicts were written by the gate statement itself.
            if result.ledger_id is not None and result.verdict is None:
                scope["litestar_app"].state.ledger_statuses.record(result.ledger_id, status)

    return middleware
