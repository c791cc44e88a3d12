"""Declaring a gated route: ``@v1_get(path, permission=...)`` and ``@v1_post(...)``.

Everything the gate does for a route is named in its declaration, through this module:

- the permission: kept in the handler's ``opt``, where the gate middleware reads it
  (refusals 401, 429, 403, 404, 409 happen there, before Litestar parses any parameter);
- the OpenAPI operation: the permission in its description, both security schemes, the
  answer's type and every error and header it can come with (``app.gate.document``);
- the dependencies the gate provides (``account: ConnectedAccount``, ``upstream: Upstream``);
- ``provides``: handler arguments built in the wrapper from parameters that join the
  handler's own (the store routes' ``reader``), parsed with them in one pass;
- the post-validation step, ``after_validation``, wrapped around the handler function
  before Litestar sees it. Litestar calls the handler function only after it has parsed
  and validated every parameter (400) and a declared body (413), so this is the one place
  after validation and before the handler body: it enforces the body limit for handlers
  that never read the body, refuses an integer path parameter not written in ASCII digits
  (400: Litestar's ``int()`` takes ``/v1/5%0A/...``), refuses with 402 when the request's
  credit did not come off the balance, takes the organization's fair share the route
  declares (``share=``, ``app.gate.shares``: 429 ``concurrency_limit`` past it), and puts
  ``_meta`` into the envelope the handler returns.

Every other option is Litestar's own (``dependencies``, ``tags``, ``summary``, ...).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from litestar import Litestar, Request, Response, get, post
from litestar.exceptions import ImproperlyConfiguredException, InternalServerException
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import SecurityRequirement
from litestar.routes import HTTPRoute

from app.envelope import Answer, as_envelope
from app.errors import ApiError, client_closed
from app.gate.dependencies import GATE_DEPENDENCIES
from app.gate.document import GatedOperation, answer_type, error_responses
from app.gate.shares import SHARES, take_for_request
from app.gate.state import PERMISSION_OPT, current_gate
from app.metrics import GATE_REFUSALS
from app.params import bad_parameter
from app.permissions import PERMISSIONS

GATED_PREFIX = "/v1/"
SECURITY: list[SecurityRequirement] = [{"BearerAuth": []}, {"ApiKeyAuth": []}]
_DECLARED = "__relay_gated__"


CREDITS_SPENT = "the organization's credit balance is spent; add credits"


#: A handler argument the gate's wrapper builds from request parameters of its own:
#: a plain function whose signature declares them (``app.gate.readers.windowed_reader``).
Provider = Callable[..., Any]


def after_validation(
    fn: Callable[..., Any], provides: Mapping[str, Provider] | None = None, share: str | None = None
) -> Callable[..., Any]:
    """The handler function with the gate's post-validation step around it.

    ``functools.wraps`` keeps the function's name, module and signature (``__wrapped__``),
    so Litestar parses the same parameters it would have parsed for ``fn``. With
    ``provides``, the signature Litestar parses is the handler's without the provided
    arguments, plus each provider's parameters: one parse for all of them, where a Litestar
    dependency would cost a second parse and its resolution machinery on every request.
    Providers run first (their 400s come before the 413 and the 402, as validation does).
    ``share``: the fair share the request holds until its response has gone (after the 402:
    a request that cannot pay holds nothing).
    """
    if not inspect.iscoroutinefunction(fn):
        raise ImproperlyConfiguredException(f"gated handler {fn.__qualname__} must be async")
    providers = _providers(fn, provides or {})
    own = set(inspect.signature(fn).parameters)
    # Parameters only the providers take: not passed on to the handler.
    theirs = tuple({p for _, _, takes in providers for p in takes} - own)

    @functools.wraps(fn)
    async def gated(*args: Any, **kwargs: Any) -> Any:
        state = current_gate()
        check_path_integers(state.scope)
        for name, provide, takes in providers:
            kwargs[name] = provide(**{p: kwargs[p] for p in takes})
        for p in theirs:
            del kwargs[p]
        if state.has_body:
            # Request.body() raises 413 past the app's request_max_body_size (announced or
            # streamed) and caches the bytes in the scope for a handler that reads them.
            try:
                await Request(state.scope, state.receive).body()
            except InternalServerException as exc:  # its one 500: the client left mid-body
                raise client_closed() from exc
        result = state.result
        if not result.debited:
            GATE_REFUSALS.labels(402).inc()
            raise ApiError(402, CREDITS_SPENT, "credits_exhausted")
        if share is not None:
            state.held = take_for_request(share)  # given back by state.finish
        answer = await fn(*args, **kwargs)
        if isinstance(answer, Response):
            return answer  # a streamed export: a file, not an envelope
        envelope = as_envelope(answer)
        return Answer(data=envelope.data, pagination=envelope.pagination, meta=result.meta(envelope.cache))

    if providers:
        _merge_signatures(gated, fn, providers)
    # What the wrapper returns, and what the document declares (a copy: ``wraps`` shares
    # ``fn``'s own annotations).
    gated.__annotations__ = {**gated.__annotations__, "return": answer_type(fn)}
    setattr(gated, _DECLARED, True)
    return gated


#: Route path template -> (segment index, name) of each of its parameters (a handful of routes).
_PATH_PARAMETERS: dict[str, tuple[tuple[int, str], ...]] = {}


def _path_parameters(template: str) -> tuple[tuple[int, str], ...]:
    places = _PATH_PARAMETERS.get(template)
    if places is None:
        parts = enumerate(template.split("/"))
        places = _PATH_PARAMETERS[template] = tuple((i, part[1:-1]) for i, part in parts if part.startswith("{"))
    return places


#: Paths found written in ASCII digits where their routes take integers: a client asks for
#: the same few paths again and again (its accounts' routes), each checked once.
_CHECKED_PATHS: set[str] = set()
MAX_CHECKED_PATHS = 10_000


def check_path_integers(scope: Any) -> None:
    """400 for an integer path parameter written other than in ASCII digits.

    Litestar reads ``{account_id:int}`` with ``int()``, which also takes a trailing newline
    (``5%0A``), spaces, ``+5``, ``5_0`` and other scripts' digits (``%D9%A3``); query
    integers refuse them, and so do path integers."""
    path = scope["path"]
    if path in _CHECKED_PATHS:
        return
    places = _path_parameters(scope["path_template"])
    segments = path.split("/")
    parsed = scope["path_params"]
    for index, name in places:
        raw = segments[index]
        if type(parsed.get(name)) is int and not (raw.isascii() and raw.isdigit()):
            raise bad_parameter(name, "must be an integer in ASCII digits", source="path")
    if len(_CHECKED_PATHS) >= MAX_CHECKED_PATHS:
        _CHECKED_PATHS.clear()  # bounded: the paths in use come back at their next request
    _CHECKED_PATHS.add(path)


def _keyword_parameters(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    """``fn``'s parameters as keyword-only ones, each annotated with its resolved type hint."""
    hints = get_type_hints(fn, include_extras=True)
    return [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(p.name, p.annotation))
        for p in inspect.signature(fn).parameters.values()
    ]


def _providers(fn: Callable[..., Any], provides: Mapping[str, Provider]) -> list[tuple[str, Provider, tuple[str, ...]]]:
    """(argument, provider, the provider's parameter names) of each provided argument."""
    own = set(inspect.signature(fn).parameters)
    found = []
    for name, provide in provides.items():
        if name not in own:
            raise ImproperlyConfiguredException(f"{fn.__qualname__} does not take the provided {name!r}")
        found.append((name, provide, tuple(inspect.signature(provide).parameters)))
    return found


def _merge_signatures(wrapper: Callable[..., Any], fn: Callable[..., Any], providers) -> None:
    """What Litestar reads of ``wrapper``: each provider's parameters, then ``fn``'s less the
    provided ones (the order the schema listed them in as dependencies)."""
    provided = {name for name, *_ in providers}
    own = [p for p in _keyword_parameters(fn) if p.name not in provided]
    parameters: list[inspect.Parameter] = []
    seen = {p.name for p in own}
    for _, provide, _ in providers:
        for p in _keyword_parameters(provide):
            if p.name not in seen:
                parameters.append(p)
                seen.add(p.name)
    parameters += own
    hints = get_type_hints(fn, include_extras=True)
    wrapper.__signature__ = inspect.Signature(parameters, return_annotation=hints.get("return"))  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": hints.get("return")}
    del wrapper.__wrapped__  # type: ignore[attr-defined]  # the signature above is the one


def _declare(decorator: type[HTTPRouteHandler], method: str, path: str, permission: str, options: dict[str, Any]):
    if not path.startswith(GATED_PREFIX):
        raise ImproperlyConfiguredException(f"gated route {path} must live under {GATED_PREFIX}")
    if permission not in PERMISSIONS:
        raise ImproperlyConfiguredException(f"route {path} names unknown permission {permission!r}")
    responses: Mapping[int, ResponseSpec] = options.pop("responses", None) or {}
    provides: Mapping[str, Provider] = options.pop("provides", None) or {}
    share: str | None = options.pop("share", None)
    if share is not None and share not in SHARES:
        raise ImproperlyConfiguredException(f"route {path} names unknown share {share!r}")
    dependencies = {**GATE_DEPENDENCIES, **(options.pop("dependencies", None) or {})}
    opt = {**(options.pop("opt", None) or {}), PERMISSION_OPT: permission}
    given_description = options.pop("description", None)
    operation = options.pop("operation_class", GatedOperation)

    def declare(fn: Callable[..., Any]) -> HTTPRouteHandler:
        description = given_description or inspect.getdoc(fn) or ""
        # A route that takes the upstream (or a store reader, which may go live) can fail there.
        calls_upstream = bool({"upstream", "reader"} & set(inspect.signature(fn).parameters))
        errors = error_responses(method, path, permission, calls_upstream=calls_upstream)
        return decorator(
            path,
            opt=opt,
            dependencies=dependencies,
            security=SECURITY,
            responses={**errors, **responses},
            operation_class=operation,
            description=f"{description}\n\nPermission: `{permission}`.".strip(),
            **options,
        )(after_validation(fn, provides, share))

    return declare


def v1_get(path: str, *, permission: str, **options: Any) -> Callable[[Callable[..., Any]], HTTPRouteHandler]:
    """A GET route behind the gate, needing ``permission`` (a name from ``app.permissions``)."""
    return _declare(get, "GET", path, permission, options)


def v1_post(path: str, *, permission: str, **options: Any) -> Callable[[Callable[..., Any]], HTTPRouteHandler]:
    """A POST route behind the gate, needing ``permission``."""
    return _declare(post, "POST", path, permission, options)


# --- the app-wide check --------------------------------------------------------------------


def gated_handlers(app: Litestar) -> list[tuple[str, HTTPRouteHandler]]:
    """(path, handler) of every gated route handler of the app."""
    return [
        (route.path, handler)
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if handler.opt.get(PERMISSION_OPT) is not None
    ]


def refuse_ungated_routes(app: Litestar) -> None:
    """Every route under ``/v1/`` is declared with ``v1_get``/``v1_post``, or the app does
    not start: a route cannot end up outside the gate by forgetting it. (Litestar answers
    OPTIONS on every path itself: no data, no key needed.)"""
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or not route.path.startswith(GATED_PREFIX):
            continue
        for handler in route.route_handlers:
            if handler.http_methods == {"OPTIONS"}:
                continue
            if handler.opt.get(PERMISSION_OPT) is None or not getattr(handler.fn, _DECLARED, False):
                raise ImproperlyConfiguredException(
                    f"route {route.path} is not declared with v1_get/v1_post (app.gate.route)"
                )
