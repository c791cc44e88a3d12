"""The gate's request side: authentication, rate limit, permission and account, in that
order, and the response side of metering.

The app's one middleware (``app.request_context``) calls ``gate_here``, else ``pass_gate``,
for every route declared with a permission. Litestar has routed the request by then, so the
route handler (and the permission ``v1_get``/``v1_post`` put in its ``opt``) and the parsed
path parameters are in the scope. Both read the key from the raw headers and have the
gatekeeper meter the request (``app.gate.keeper``): ``gate_here`` from what the process
holds, with no await, ``pass_gate`` through the gate statement for what it leaves. Either
refuses:

1. 401 -- no key, a malformed key, an unknown or revoked key (nothing counted, 0 credits);
2. 429 -- the organization's minute or day window is full (nothing counted, 0 credits);
3. 403 -- the key's role does not grant the route's permission (1 credit);
4. 404 -- the route's ``account_id`` is not connected to the key's organization, whether or
   not another organization has it: the same answer, so nothing leaks (1 credit);
5. 409 -- the route's account is disconnected (``relay accounts disconnect``): no store
   read and no upstream call until ``relay accounts reconnect`` (1 credit, like 404).

A refusal is an ``ApiError`` raised here; the middleware runs inside Litestar's exception
handling, so it becomes the same ``{"error", "code"}`` response as any other error, with
its headers. Validation (400, 413) and credits (402) follow in the route's post-validation
step (``app.gate.route``).

What passes is the request's ``GateState``: the headers every metered response carries
(rate limits, credits used), what the route's steps read, and ``finish(status)``, which
queues the request's ledger row with its final status (``app.gate.ledger``).
"""

from __future__ import annotations

import functools
import re
from hashlib import sha256
from typing import cast

from litestar.types import HTTPScope, Receive, Scope

from app.errors import ApiError
from app.gate.keys import KEY_PATTERN, KeyDigests, digests_match, presented_key
from app.gate.state import GateRuntime, GateState
from app.gate.statement import GateResult, MeterRequest
from app.metrics import GATE_REFUSALS
from app.request_id import request_id

UNAUTHENTICATED = "missing, invalid or revoked API key (send Authorization: Bearer <key> or X-API-Key: <key>)"
RATE_LIMITED = "rate limit exceeded for this organization; retry after the window resets"

RECONNECT = "relay accounts reconnect"
#: The refusals that count (a window slot, a credit and a ledger row), like any request.
COUNTED_REFUSALS = frozenset((403, 404, 409))


def rate_limit_headers(result: GateResult) -> list[tuple[bytes, bytes]]:
    """The limits and the credits used as response headers (names and values as bytes)."""
    limit_minute, limit_day = result.limit_minute, result.limit_day
    minute_left, day_left = limit_minute - result.minute_used, limit_day - result.day_used
    per_minute, per_day = _limit_headers(limit_minute, limit_day)
    return [
        per_minute,
        (b"x-ratelimit-remaining-minute", b"%d" % minute_left if minute_left > 0 else b"0"),
        per_day,
        (b"x-ratelimit-remaining-day", b"%d" % day_left if day_left > 0 else b"0"),
        _CREDITS_USED[result.counted],
    ]


@functools.lru_cache(maxsize=1024)
def _limit_headers(limit_minute: int, limit_day: int) -> tuple[tuple[bytes, bytes], tuple[bytes, bytes]]:
    """The limits' headers: the same few values on every response."""
    return (b"x-ratelimit-limit-minute", b"%d" % limit_minute), (b"x-ratelimit-limit-day", b"%d" % limit_day)


_CREDITS_USED = {True: (b"x-credits-used", b"1"), False: (b"x-credits-used", b"0")}


def uncharged(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``rate_limit_headers`` of a request answered 5xx: its credit goes back, it used none
    (``X-Credits-Used`` is the last of them)."""
    return [*headers[:-1], _CREDITS_USED[False]]


def refusal(result: GateResult, digest: bytes, permission: str, account_id: int | None) -> ApiError | None:
    """The gate's answer when it refuses the request (in the order of checks), else None."""
    # The statement found the key by its digest's index entry: compare the digests in
    # constant time too (a key the process holds was found by the same digest).
    if not result.authenticated or (result.key_hash is not None and not digests_match(result.key_hash, digest)):
        return ApiError(401, UNAUTHENTICATED, "unauthenticated")
    if result.counted and result.permitted and result.verdict is None:
        return None  # admitted: the common case builds nothing
    headers = {name.decode(): value.decode() for name, value in rate_limit_headers(result)}
    if not result.counted:
        return ApiError(
            429,
            RATE_LIMITED,
            "rate_limited",
            headers={**headers, "Retry-After": str(result.retry_after())},
        )
    if not result.permitted:
        message = f"this key's role does not grant the permission {permission!r}"
        return ApiError(403, message, "forbidden", headers=headers)
    if result.verdict == 404:
        message = f"account {account_id} is not connected to this organization"
        return ApiError(404, message, "account_not_found", headers=headers)
    if result.verdict == 409:
        message = f"account {account_id} is disconnected: an operator turns it back on with {RECONNECT!r}"
        return ApiError(409, message, "account_disconnected", headers=headers)
    return None


_BEARER = b"Bearer "
_KEY_BYTES = re.compile(KEY_PATTERN.pattern.encode())


def _presented(scope: Scope, digests: KeyDigests) -> tuple[bytes | None, bytes | None, bool]:
    """The key the request carries (None: none we accept), its digest when the gatekeeper
    remembers it (``KeyDigests``), and whether the request announces a body, from the
    scope's raw header list (ASGI names are lower case; the first of each key header wins).
    The usual ``Authorization: Bearer <key>`` alone is read as bytes, and a remembered key
    is not checked again; every other form goes through ``presented_key``, which has the rules."""
    authorization = api_key = None
    has_body = False
    for name, value in scope["headers"]:  # compared, not hashed: a header name is new bytes each time
        if name == b"authorization":
            if authorization is None:
                authorization = value
        elif name == b"x-api-key":
            if api_key is None:
                api_key = value
        elif name == b"content-length" or name == b"transfer-encoding":
            has_body = True
    if api_key is None and authorization is not None and authorization.startswith(_BEARER):
        bearer = authorization[len(_BEARER):]
        digest = digests.known(bearer)  # only well-formed keys are remembered
        if digest is not None or _KEY_BYTES.fullmatch(bearer):
            return bearer, digest, has_body
    found = {
        name: value.decode("latin-1")
        for name, value in (("authorization", authorization), ("x-api-key", api_key))
        if value is not None
    }
    key = presented_key(found)
    if key is None:
        return None, None, has_body
    encoded = key.encode("ascii")
    return encoded, digests.known(encoded), has_body


def gate_here(scope: HTTPScope, receive: Receive, permission: str, runtime: GateRuntime) -> GateState | None:
    """The gate for a request the gatekeeper decides from what this process holds, with no
    await: its state, or its refusal raised; None when the statement must decide (or the
    request has no key): then ``pass_gate``, which reads the key again."""
    gatekeeper = runtime.gatekeeper
    key, digest, has_body = _presented(scope, gatekeeper.digests)
    if key is None:
        return None
    hashed = digest is None
    if digest is None:
        digest = sha256(key).digest()
    account_id = cast("int | None", scope["path_params"].get("account_id"))  # parsed by {account_id:int}
    result = gatekeeper.admit_here(digest, permission, account_id)
    if result is None:
        return None
    if hashed:
        gatekeeper.digests.remember(key, digest)  # a key the gatekeeper knows
    return _passed(result, digest, permission, account_id, scope, receive, has_body, runtime)


async def pass_gate(scope: HTTPScope, receive: Receive, permission: str, runtime: GateRuntime) -> GateState:
    """The gate for a request ``gate_here`` left to the statement: meter it there; raise its
    refusal (an ``ApiError``, whose 403, 404 or 409 is in the ledger already) or let it through."""
    key, digest, has_body = _presented(scope, runtime.gatekeeper.digests)
    if key is None:
        GATE_REFUSALS.labels(401).inc()
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    if digest is None:
        digest = sha256(key).digest()
    account_id = cast("int | None", scope["path_params"].get("account_id"))  # parsed by {account_id:int}
    result = await runtime.gatekeeper.admit(
        MeterRequest.of(digest, permission, account_id, scope["method"], scope["path_template"], request_id.get())
    )
    return _passed(result, digest, permission, account_id, scope, receive, has_body, runtime)


def _passed(
    result: GateResult, digest: bytes, permission: str, account_id: int | None, scope: HTTPScope, receive: Receive,
    has_body: bool, runtime: GateRuntime,
) -> GateState:
    """The request's state once the gate has ``result``, or its refusal raised."""
    gate = GateState(result, account_id, scope, receive, has_body, runtime.ledger, rate_limit_headers(result))
    error = refusal(result, digest, permission, account_id)
    if error is not None:
        GATE_REFUSALS.labels(error.status).inc()
        if error.status in COUNTED_REFUSALS:  # they have a ledger row
            gate.finish(error.status)
        raise error
    return gate
