"""One error type carrying its HTTP status, and the one place errors become responses.

Every error body is ``{"error": "<message>", "code": "<machine-readable code>"}``: never
the envelope, never a traceback. Handlers raise; they never build error bodies:

- ``ApiError(status, message, code)`` for our own refusals;
- ``app.params.bad_parameter(name, rule)`` (a Litestar ``ValidationException``) for a query
  value that breaks a rule the signature cannot express; Litestar raises the same exception
  for signature rules (types, bounds, ``Literal`` enumerations);
- the upstream client's typed errors (``app.upstream.errors``) simply propagate: one mapping
  here turns them into 424, 400 or 404.

Anything else is a bug: it is logged with its traceback and answered with a bare 500.
"""

from __future__ import annotations

import functools
import logging
import math
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, get_args, get_origin

import psycopg
from litestar import MediaType, Request, Response
from litestar.exceptions import (
    HTTPException,
    MethodNotAllowedException,
    NotFoundException,
    ValidationException,
)
from litestar.status_codes import HTTP_413_REQUEST_ENTITY_TOO_LARGE
from litestar.types import ExceptionHandlersMap

from app.params import pattern_rule
from app.upstream.errors import (
    UpstreamBadRequest,
    UpstreamCredentialsRejected,
    UpstreamError,
    UpstreamNotFound,
    UpstreamUnavailable,
)

logger = logging.getLogger(__name__)

#: The status recorded for a request whose client went away before its answer (nginx's
#: convention): nobody receives it; it is logged and metered as ``client_closed``.
CLIENT_CLOSED = 499


class ApiError(Exception):
    """A refusal with its HTTP status, a message fit for the caller and a stable code."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = dict(headers or {})


def error_response(
    status: int, message: str, code: str, headers: Mapping[str, str] | None = None
) -> Response[dict[str, str]]:
    return Response(
        {"error": message, "code": code},
        status_code=status,
        media_type=MediaType.JSON,
        headers=dict(headers or {}),
    )


# --- upstream failures -> HTTP -------------------------------------------------------------


def upstream_error_status(exc: UpstreamError) -> tuple[int, str]:
    """The status and message for an upstream failure (the spec's 424 "failed dependency")."""
    if isinstance(exc, UpstreamCredentialsRejected):
        return 424, "upstream rejected the account's credentials"
    if isinstance(exc, UpstreamBadRequest):
        return 400, f"upstream refused a parameter: {exc.reason}"
    if isinstance(exc, UpstreamNotFound):
        return 404, f"not found upstream: {exc.reason}"
    if isinstance(exc, UpstreamUnavailable):
        return 424, f"upstream unavailable: {exc.reason}"
    return 424, f"upstream failed: {exc.reason}"


def client_closed() -> ApiError:
    """The request's client went away (mid-body): answered to nobody, charged nothing."""
    return ApiError(CLIENT_CLOSED, "the client closed the connection before the request was answered", "client_closed")


def answered_status(exc: Exception) -> int:
    """The status the exception handlers below answer ``exc`` with."""
    if isinstance(exc, ApiError):
        return exc.status
    if isinstance(exc, UpstreamError):
        return upstream_error_status(exc)[0]
    if isinstance(exc, psycopg.OperationalError):
        return 503
    if isinstance(exc, HTTPException) and exc.status_code < 500:
        return exc.status_code
    return 500


# --- validation messages ----------------------------------------------------------------------


def literal_values(annotation: Any) -> list[str]:
    """The values a ``Literal[...]`` (possibly inside ``Optional`` or ``Annotated``) allows."""
    if get_origin(annotation) is Literal:
        return [str(value) for value in get_args(annotation)]
    for inner in get_args(annotation):
        if values := literal_values(inner):
            return values
    return []


@functools.cache
def handler_annotations(fn: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations of a route handler's parameters (by name)."""
    return typing.get_type_hints(fn, include_extras=True)


def _enumeration_rule(request: Request, key: str) -> str | None:
    """'must be one of: a, b' for a ``Literal`` parameter of the route handler."""
    annotation = handler_annotations(request.route_handler.fn).get(key)
    values = literal_values(annotation) if annotation is not None else []
    return f"must be one of: {', '.join(values)}" if values else None


def _public_name(request: Request, key: str) -> str:
    """The name a caller sends for handler argument ``key`` (``search`` is sent as ``query``)."""
    parameter = request.route_handler.parsed_fn_signature.parameters.get(key)
    definition = getattr(parameter, "kwarg_definition", None)
    alias = getattr(definition, "query", None) or getattr(definition, "name", None)
    return alias if isinstance(alias, str) else key


def validation_message(exc: ValidationException, request: Request | None = None) -> str:
    """"invalid query parameter 'limit': Expected `int` <= 100" -- the parameter and the rule.

    Litestar's ``extra`` is a list of ``{"key", "message", "source"}``; ``bad_parameter``
    in ``app.params`` raises the same shape for rules the signature cannot express. For an
    enumeration Litestar names only the bad value, so the allowed values are added.
    """
    problems = exc.extra if isinstance(exc.extra, list) else []
    parts = []
    for problem in problems:
        if not isinstance(problem, Mapping):
            continue
        key = problem.get("key")
        source = getattr(problem.get("source"), "value", problem.get("source")) or "query"
        rule = pattern_rule(str(problem.get("message") or "invalid value"))
        if key and request is not None and rule.startswith("Invalid enum value"):
            rule = f"{rule}; {_enumeration_rule(request, key) or 'not an allowed value'}"
        if key and request is not None:
            key = _public_name(request, key)
        parts.append(f"invalid {source} parameter {key!r}: {rule}" if key else rule)
    return "; ".join(parts) or f"invalid request: {exc.detail}"


# --- exception handlers ---------------------------------------------------------------------


def _api_error(_: Request, exc: ApiError) -> Response:
    return error_response(exc.status, exc.message, exc.code, exc.headers)


def _upstream_error(_: Request, exc: UpstreamError) -> Response:
    status, message = upstream_error_status(exc)
    retry_after = getattr(exc, "retry_after", None)  # circuit open, rate limited
    headers = {"Retry-After": str(math.ceil(retry_after))} if retry_after else None
    return error_response(status, message, exc.code, headers)


def _database_unavailable(request: Request, exc: psycopg.OperationalError) -> Response:
    # Unreachable, restarting, or no connection free within RELAY_DB_WAIT_TIMEOUT.
    logger.warning(
        "database_unavailable",
        extra={"method": request.method, "path": request.url.path, "error": type(exc).__name__},
    )
    return error_response(
        503, "database unavailable; try again shortly", "database_unavailable", {"Retry-After": "1"}
    )


def _validation_error(request: Request, exc: ValidationException) -> Response:
    return error_response(400, validation_message(exc, request), "invalid_parameter")


def _not_found(request: Request, exc: NotFoundException) -> Response:
    # Litestar raises this for a path no route matches; our own 404s are ApiErrors.
    return error_response(404, f"no route {request.method} {request.url.path}", "route_not_found")


def _method_not_allowed(request: Request, exc: MethodNotAllowedException) -> Response:
    return error_response(
        405, f"method {request.method} not allowed on {request.url.path}", "method_not_allowed",
        exc.headers,
    )


def _http_exception(request: Request, exc: HTTPException) -> Response:
    if exc.status_code == HTTP_413_REQUEST_ENTITY_TOO_LARGE:
        limit = request.route_handler.resolve_request_max_body_size()
        return error_response(
            413, f"request body too large: the limit is {limit} bytes", "body_too_large"
        )
    if exc.status_code >= 500:
        return _internal_error(request, exc)
    return error_response(exc.status_code, str(exc.detail), "http_error", exc.headers)


def _internal_error(request: Request, exc: Exception) -> Response:
    logger.error(
        "unhandled_error",
        exc_info=exc,
        extra={"method": request.method, "path": request.url.path},
    )
    return error_response(500, "internal server error", "internal_error")


def exception_handlers() -> ExceptionHandlersMap:
    """The app's handlers, keyed by class only (Litestar prefers status keys over classes)."""
    return {
        ApiError: _api_error,
        UpstreamError: _upstream_error,
        psycopg.OperationalError: _database_unavailable,
        ValidationException: _validation_error,
        NotFoundException: _not_found,
        MethodNotAllowedException: _method_not_allowed,
        HTTPException: _http_exception,
        Exception: _internal_error,
    }
