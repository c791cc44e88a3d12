"""The gate guard: authentication, rate limit, permission and account, in that order.

One guard, installed on the app, reads the permission a route declares in its ``opt``
(``opt={"permission": "api_chats_list"}``) and runs the gate statement (one database
round trip, shared with the process's concurrent requests, see ``app.gate.metering``). It then refuses, in the documented order:

1. 401 -- no key, a malformed key, an unknown or revoked key (nothing counted, 0 credits);
2. 429 -- the organization's minute or day window is full (nothing counted, 0 credits);
3. 403 -- the key's role does not grant the route's permission (1 credit);
4. 404 -- the route's ``account_id`` is not connected to the key's organization, whether or
   not another organization has it: the same answer, so nothing leaks (1 credit).

Validation (400, 413) comes next, in Litestar's own parameter parsing, then credits (402),
in the post-validation step (``app.gate.install``).
"""

from __future__ import annotations

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from app.errors import ApiError
from app.gate.keys import digests_match, key_digest, key_headers, presented_key
from app.gate.metering import MeterRequest
from app.gate.state import PERMISSION_OPT, _current

UNAUTHENTICATED = "missing, invalid or revoked API key (send Authorization: Bearer <key> or X-API-Key: <key>)"


async def gate_guard(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
    permission = handler.opt.get(PERMISSION_OPT)
    state = _current.get()
    if permission is None or state is None:
        return  # an open route (health, the API documentation)
    key = presented_key(key_headers(connection.scope["headers"]))
    if key is None:
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    digest = key_digest(key)
    account_id = connection.path_params.get("account_id")
    state.account_id = account_id
    scope = connection.scope
    result = await connection.app.state.meter(
        MeterRequest(digest, permission, account_id, scope["method"], scope["path_template"])
    )
    state.result = result
    state.request = connection  # type: ignore[assignment]
    if not result.authenticated or not digests_match(result.key_hash or b"", digest):
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    if not result.counted:
        raise ApiError(
            429,
            "rate limit exceeded for this organization; retry after the window resets",
            "rate_limited",
            headers={"Retry-After": str(result.retry_after())},
        )
    if not result.permitted:
        raise ApiError(
            403, f"this key's role does not grant the permission {permission!r}", "forbidden"
        )
    if result.verdict == 404:
        raise ApiError(
            404, f"account {account_id} is not connected to this organization", "account_not_found"
        )
