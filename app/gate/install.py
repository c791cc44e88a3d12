"""Wiring the gate into an app: route checks, the post-validation step, OpenAPI, dependencies.

``install_gate(app)`` runs once in ``create_app`` after the routes are registered:

- every route under ``/v1/`` must declare a known permission in its ``opt``, or the app
  refuses to start (a route cannot be added outside the gate by forgetting it);
- each gated handler's function is wrapped by ``_after_validation``. Litestar calls the
  handler function only after it has parsed and validated every parameter (400) and read
  a declared body (413), so the wrapper is the one place that runs after validation and
  before the handler: it enforces the body limit for handlers that do not read the body,
  refuses with 402 when the request's credit did not come off the balance, and after the
  handler puts ``_meta`` into the envelope;
- the OpenAPI operation of each gated route gets its permission (in its description), the
  security schemes and the error responses.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import Litestar, Request
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.exceptions import ImproperlyConfiguredException
from litestar.openapi.datastructures import ResponseSpec
from litestar.routes import HTTPRoute

from app.envelope import as_envelope
from app.errors import ApiError
from app.gate.state import PERMISSION_OPT, GateState, current_gate
from app.permissions import PERMISSIONS
from app.upstream.client import UpstreamAccount, UpstreamClient

GATED_PREFIX = "/v1/"
_WRAPPED = "__relay_gated__"


class ErrorBody(msgspec.Struct):
    """Every error: a message and a stable machine-readable code. Never the envelope."""

    error: str
    code: str


#: The errors every gated route may answer, in the order the gate checks them.
ERROR_RESPONSES: dict[int, str] = {
    401: "Missing, invalid or revoked API key. 0 credits.",
    429: "The organization's minute or day window is full; see Retry-After. 0 credits.",
    403: "The key's role does not grant this route's permission. 1 credit.",
    404: "Unknown account for this organization (or an unknown resource). 1 credit.",
    400: "A query value breaks its rule (type, range, enumeration, exclusion). 1 credit.",
    413: "The request body is larger than the documented limit. 1 credit.",
    402: "The organization's credit balance is spent. 1 credit (not debited).",
    424: "The upstream platform failed or rejected the account's credentials. 1 credit.",
    500: "Internal error (no details). 1 credit.",
}


# --- the post-validation step --------------------------------------------------------


async def _enforce_body_limit(state: GateState) -> None:
    """Read a body the handler may not read, so the size limit holds on every route.

    ``Request.body()`` raises 413 past the app's ``request_max_body_size``, by the
    announced length or by the bytes actually streamed; it caches what it read in the
    scope, so a handler that reads the body gets it from there. Only requests that
    announce a body (the middleware saw ``Content-Length`` or ``Transfer-Encoding``) pay
    for it.
    """
    if state.has_body:
        await Request(state.scope, state.receive).body()


_CREDITS_SPENT = "the organization's credit balance is spent; add credits"


def _after_validation(fn: Callable[..., Any]) -> Callable[..., Any]:
    if not inspect.iscoroutinefunction(fn):
        raise ImproperlyConfiguredException(f"gated handler {fn.__qualname__} must be async")

    @functools.wraps(fn)
    async def gated(*args: Any, **kwargs: Any) -> Any:
        state = current_gate()
        if state.has_body:
            await _enforce_body_limit(state)
        result = state.result
        if not result.debited:
            raise ApiError(402, _CREDITS_SPENT, "credits_exhausted")
        envelope = as_envelope(await fn(*args, **kwargs))
        cache, envelope.cache = envelope.cache, None  # a store-served route says where its data came from
        envelope.meta = result.meta(cache)
        return envelope

    setattr(gated, _WRAPPED, True)
    return gated


# --- route checks and OpenAPI ------------------------------------------------------------


def _declared_permission(path: str, handler: Any) -> str | None:
    permission = handler.opt.get(PERMISSION_OPT)
    # Litestar answers OPTIONS on every path itself (no data, no key needed).
    automatic_options = handler.http_methods == {"OPTIONS"}
    if permission is None and path.startswith(GATED_PREFIX) and not automatic_options:
        raise ImproperlyConfiguredException(
            f"route {path} declares no permission: add opt={{'permission': ...}}"
        )
    if permission is not None and permission not in PERMISSIONS:
        raise ImproperlyConfiguredException(f"route {path} names unknown permission {permission!r}")
    return permission


def _document(handler: Any, permission: str) -> None:
    note = f"Permission: `{permission}`."
    description = handler.description or inspect.getdoc(handler.fn) or ""
    if note not in description:
        handler.description = f"{description}\n\n{note}".strip()
    handler.security = [{"BearerAuth": []}, {"ApiKeyAuth": []}]
    handler.responses = {
        **{
            status: ResponseSpec(data_container=ErrorBody, description=text)
            for status, text in ERROR_RESPONSES.items()
            if status != 413 or handler.http_methods & {"POST", "PUT", "PATCH"}
        },
        **(handler.responses or {}),
    }


def gated_handlers(app: Litestar) -> list[tuple[str, Any]]:
    """(path, handler) of every gated route handler of the app."""
    found = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            if _declared_permission(route.path, handler) is not None:
                found.append((route.path, handler))
    return found


def _resolve_dependencies_one_by_one(app: Litestar) -> None:
    """Let Litestar resolve each gated route's dependencies one after the other.

    Litestar resolves the dependencies of one level of the dependency graph concurrently,
    in an anyio task group, whenever a level holds more than one (litestar-org/litestar
    issue 4563). Our providers do no I/O (the gate has already read the database), so the
    concurrency buys nothing, and the task group cost more per request than the store
    query of a store-served route. The levels are split into single dependencies, in the
    same (topological) order. ``tests/gate/test_admin_and_docs.py`` checks it still holds
    on every gated route, so a Litestar upgrade that changes this internal shows up there.
    """
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler, kwargs_model in route.route_handler_map.values():
            if handler.opt.get(PERMISSION_OPT) is None:
                continue
            batches = kwargs_model.dependency_batches
            if any(len(batch) > 1 for batch in batches):
                kwargs_model.dependency_batches = [{dependency} for batch in batches for dependency in batch]


def install_gate(app: Litestar) -> None:
    for _, handler in gated_handlers(app):
        if not getattr(handler.fn, _WRAPPED, False):
            handler._fn = _after_validation(handler.fn)  # Litestar keeps the function here
        _document(handler, handler.opt[PERMISSION_OPT])
    _resolve_dependencies_one_by_one(app)


# --- dependencies route handlers ask for by name ---------------------------------------------

#: ``account: ConnectedAccount`` -- the route's ``{account_id}``, checked to belong to the
#: caller's organization, with its upstream credential.
ConnectedAccount = NamedDependency[UpstreamAccount]
#: ``upstream: Upstream`` -- the process's one ``UpstreamClient``.
Upstream = NamedDependency[UpstreamClient]



def connected_account() -> UpstreamAccount:
    """The request's account, already checked by the gate to be the caller's."""
    state = current_gate()
    token = state.result.upstream_token
    if state.account_id is None or token is None:
        raise RuntimeError("'account' asked for by a route without an {account_id:int} path parameter")
    return UpstreamAccount(account_id=state.account_id, token=token)


async def provide_upstream(state: State) -> UpstreamClient:
    """``upstream: UpstreamClient``: the process's one upstream client."""
    return state.upstream


def gate_dependencies() -> dict[str, Provide]:
    # ``account`` is a plain function called in place (no coroutine, no thread): it only
    # reads the gate's state.
    return {
        "account": Provide(connected_account, sync_to_thread=False),
        "upstream": Provide(provide_upstream),
    }
