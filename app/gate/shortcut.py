"""Answering an admitted GET without Litestar's parameter and response machinery.

Litestar has routed the request when the app's middleware sees it; what it does after the
middleware -- build the handler's arguments from a model of its signature (one
``msgspec.convert`` per request, dependencies resolved), call it, then build a
``Response`` and turn it into ASGI messages -- cost a store page about as much as the whole
minimal app it is measured against (docs/benchmarks.md, "Per-request CPU by layer").

A gated route whose query parameters are all plain integers (``marker``, ``limit``,
``offset``) or left out is served here instead, when the request's query is one this
module reads exactly as Litestar would: every name one of the route's integer parameters,
each at most once, each value ASCII digits within the parameter's declared bounds. Every
other request -- another parameter, a repeated one, a sign, a percent-escape, a value out
of bounds -- goes through Litestar, which parses it and answers the 400. The handler, its
post-validation step (``app.gate.route``), the envelope and the serializer are the same
either way; so are the error answers, which Litestar's exception handling renders around
both.

The plan of each route is read once from the signature Litestar parsed
(``parsed_fn_signature``): the same declaration that documents the route.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

import msgspec
from litestar import Litestar, Request, Response
from litestar.enums import MediaType
from litestar.handlers import HTTPRouteHandler
from litestar.params import ParameterKwarg
from litestar.serialization import encode_json, get_serializer
from litestar.status_codes import HTTP_200_OK
from litestar.types import ASGIApp, HTTPResponseBodyEvent, HTTPResponseStartEvent, HTTPScope, Receive, Send
from litestar.typing import FieldDefinition

#: What the handler gets from the connection rather than from the query.
_RESERVED = frozenset(("request", "state"))
#: Constraints beyond bounds (``ge``, ``le``, ``gt``, ``lt``): any makes the parameter Litestar's.
_OTHER_CONSTRAINTS = ("multiple_of", "const", "pattern", "min_length", "max_length", "min_items", "max_items",
                      "lower_case", "upper_case")
#: A plain non-negative integer as Litestar reads it with ``int()``: ASCII digits only
#: (Litestar would also take signs, spaces and underscores: those go its way).
_DIGITS = re.compile(rb"[0-9]{1,19}")
_JSON = [(b"content-type", MediaType.JSON.value.encode())]


@dataclass(frozen=True, slots=True)
class Bounds:
    """An integer parameter's declared range (inclusive; None: open)."""

    lo: int | None
    hi: int | None

    @classmethod
    def of(cls, kwarg: Any) -> Bounds | None:
        """The range ``kwarg`` declares; None when it declares a constraint beyond one."""
        if kwarg is None:
            return cls(None, None)
        if not isinstance(kwarg, ParameterKwarg):
            return None
        if any(getattr(kwarg, name, None) not in (None, False) for name in _OTHER_CONSTRAINTS):
            return None
        lo = kwarg.ge if kwarg.ge is not None else (kwarg.gt + 1 if kwarg.gt is not None else None)
        hi = kwarg.le if kwarg.le is not None else (kwarg.lt - 1 if kwarg.lt is not None else None)
        return cls(_whole(lo), _whole(hi))

    def holds(self, value: int) -> bool:
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)


def _whole(bound: Any) -> int | None:
    return None if bound is None else int(bound)


def _integer(field: FieldDefinition) -> bool:
    """``int`` or ``int | None``, nothing else (not ``bool``, an ``int`` subclass)."""
    annotation = field.annotation
    if annotation is int:
        return True
    return field.is_optional and [t.annotation for t in field.inner_types if not t.is_none_type] == [int]


class Shortcut:
    """How one gated GET route is answered without Litestar's handler machinery."""

    __slots__ = ("_defaults", "_fn", "_handler", "_path", "_query", "_request", "_serializer", "_state")

    def __init__(self, handler: HTTPRouteHandler, query: dict[bytes, tuple[str, Bounds]],
                 path: dict[str, Bounds | None], defaults: dict[str, Any], serializer: Callable[[Any], Any]) -> None:
        self._handler = handler
        self._fn = handler.fn
        #: Query name -> (handler argument, bounds) of every integer query parameter.
        self._query = query
        #: Path parameters the handler takes -> bounds of the integer ones (None: text).
        self._path = path
        #: Every query argument the handler takes, at its default.
        self._defaults = defaults
        parameters = handler.parsed_fn_signature.parameters  # which of the connection's it takes
        self._request = "request" in parameters
        self._state = "state" in parameters
        self._serializer = serializer

    @classmethod
    def plan(cls, handler: HTTPRouteHandler, path_parameters: frozenset[str]) -> Shortcut | None:
        """The route's shortcut, or None when Litestar must shape the answer (response
        headers, cookies, hooks, another status or media type) or some argument needs it: a
        dependency, a header or cookie, a required query parameter (Litestar names it when
        missing), a text path parameter with a declaration of its own, a constraint the plan
        does not check."""
        if (handler.http_methods != {"GET"} or handler.status_code != HTTP_200_OK or handler.media_type != MediaType.JSON
                or handler.resolve_guards() or handler.resolve_before_request()
                or handler.resolve_after_response() or handler.resolve_response_headers()
                or handler.resolve_response_cookies() or handler.cache or handler.background is not None
                or any(layer.after_request for layer in handler.ownership_layers)
                or handler.resolve_response_class() is not Response):
            return None
        dependencies = handler.resolve_dependencies()
        query: dict[bytes, tuple[str, Bounds]] = {}
        path: dict[str, Bounds | None] = {}
        defaults: dict[str, Any] = {}
        for name, field in handler.parsed_fn_signature.parameters.items():
            kwarg = field.kwarg_definition
            if name in _RESERVED:
                continue
            if name in dependencies or (isinstance(kwarg, ParameterKwarg) and (kwarg.header or kwarg.cookie)):
                return None
            if name in path_parameters:
                bounds = Bounds.of(kwarg) if _integer(field) else None
                if bounds is None and kwarg is not None:
                    return None
                path[name] = bounds
            elif not field.has_default:
                return None
            else:
                defaults[name] = field.default
                if _integer(field) and (bounds := Bounds.of(kwarg)) is not None:
                    alias = getattr(kwarg, "query", None) or name
                    query[alias.encode()] = (name, bounds)
        return cls(handler, query, path, defaults, get_serializer(handler.resolve_type_encoders()))

    def arguments(self, scope: HTTPScope) -> dict[str, Any] | None:
        """The handler's arguments from the request's path and query, or None when Litestar
        must read the query (or refuse it)."""
        path_params = scope["path_params"]
        arguments = dict(self._defaults)
        for parameter, bounds in self._path.items():
            value = arguments[parameter] = path_params[parameter]
            if bounds is not None and not bounds.holds(cast(int, value)):  # parsed by the route's {name:int}
                return None
        query_string = scope["query_string"]
        if not query_string:
            return arguments
        query = self._query
        seen: set[bytes] = set()
        for pair in query_string.split(b"&"):
            name, _, raw = pair.partition(b"=")
            found = query.get(name)
            if found is None or name in seen or not _DIGITS.fullmatch(raw):
                return None
            argument, bounds_ = found
            number = int(raw)
            if not bounds_.holds(number):
                return None
            seen.add(name)
            arguments[argument] = number
        return arguments

    async def answer(self, scope: HTTPScope, receive: Receive, send: Send, arguments: dict[str, Any]) -> None:
        """Call the handler with ``arguments`` and send its answer as Litestar would."""
        app = Litestar.from_scope(scope)
        request: Request | None = Request(scope, receive, send) if self._request else None
        if request is not None:
            arguments["request"] = request
        if self._state:
            arguments["state"] = app.state
        result = await self._fn(**arguments)
        if not isinstance(result, msgspec.Struct):  # not an envelope (a file, streamed): Litestar's way
            request = request or Request(scope, receive, send)
            response = await self._handler.to_response(app=app, data=result, request=request)
            await response(scope, receive, send)
            return
        body = encode_json(result, self._serializer)
        start: HTTPResponseStartEvent = {"type": "http.response.start", "status": HTTP_200_OK,
                                         "headers": [*_JSON, (b"content-length", b"%d" % len(body))]}
        end: HTTPResponseBodyEvent = {"type": "http.response.body", "body": body, "more_body": False}
        await send(start)
        await send(end)


class Shortcuts:
    """The app's shortcut of every gated GET route, planned on first use."""

    __slots__ = ("_plans",)

    def __init__(self) -> None:
        self._plans: dict[HTTPRouteHandler, Shortcut | None] = {}

    def of(self, scope: HTTPScope) -> Shortcut | None:
        handler = cast("HTTPRouteHandler", scope["route_handler"])  # an HTTP scope's
        try:
            return self._plans[handler]
        except KeyError:
            plan = self._plans[handler] = Shortcut.plan(handler, frozenset(scope["path_params"]))
            return plan

    def serve(self, scope: HTTPScope, receive: Receive, send: Send, app: ASGIApp) -> Awaitable[None]:
        """Answer the request through its route's shortcut where it has one that reads the
        request, else through ``app`` (Litestar's handling of the route). Not a coroutine of
        its own: the caller awaits the answer directly, one frame less to resume at every
        wait of the handler's."""
        shortcut = self.of(scope)
        arguments = None if shortcut is None else shortcut.arguments(scope)
        if shortcut is None or arguments is None:
            return app(scope, receive, send)
        return shortcut.answer(scope, receive, send, arguments)
