"""What the served OpenAPI document says of every answer: its type, its errors, its headers.

- The 200: ``Answer[T]`` (``app.envelope``), ``T`` read from the handler's return annotation
  ``Envelope[T]`` (``app.answers``): the type the gate's wrapper returns is the one declared.
- The errors: one ``ErrorBody`` schema, every status the route can answer (from what it
  takes: an account, the upstream, a body) with a fixed example of the message it sends.
- The headers of each status (``AnswerOperation``): ``X-Request-ID`` on every answer of the
  app, the rate-limit headers and ``X-Credits-Used`` on every answer past the gate,
  ``Retry-After`` where it is sent. Litestar's ``ResponseSpec`` has no headers, so the
  operation adds them once built (``operation_class``), keyed by status.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin, get_type_hints

import msgspec
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example, OpenAPIHeader, OpenAPIResponse, OpenAPIType, Operation, Schema
from litestar.params import KwargDefinition

from app.envelope import Answer, Envelope


class ErrorBody(msgspec.Struct):
    """Every error: a message and a stable machine-readable code. Never the envelope."""

    error: str
    code: str


#: The errors a gated route may answer, in the order the gate checks them: (description,
#: a fixed example of the body). 404, 409, 424 and 413 apply to some routes only (``error_statuses``).
ERRORS: dict[int, tuple[str, dict[str, str]]] = {
    401: (
        "Missing, invalid or revoked API key. 0 credits.",
        {"error": "missing, invalid or revoked API key (send Authorization: Bearer <key> or X-API-Key: <key>)",
         "code": "unauthenticated"},
    ),
    429: (
        "The organization's minute or day window is full (rate_limited), or it already holds its share "
        "of this server (concurrency_limit: docs/operations.md, \"Fair shares\"); see Retry-After. 0 credits.",
        {"error": "rate limit exceeded for this organization; retry after the window resets", "code": "rate_limited"},
    ),
    403: (
        "The key's role does not grant this route's permission. 1 credit.",
        {"error": "this key's role does not grant the permission '{permission}'", "code": "forbidden"},
    ),
    404: (
        "Unknown account for this organization (or an unknown resource). 1 credit.",
        {"error": "account 424242 is not connected to this organization", "code": "account_not_found"},
    ),
    409: (
        "The account is disconnected until an operator reconnects it. 1 credit.",
        {"error": "account 424242 is disconnected: an operator turns it back on with 'relay accounts reconnect'",
         "code": "account_disconnected"},
    ),
    400: (
        "A parameter breaks its rule (type, range, enumeration, exclusion). 1 credit.",
        {"error": "invalid query parameter 'limit': Expected `int` >= 1", "code": "invalid_parameter"},
    ),
    413: (
        "The request body is larger than the documented limit. 1 credit.",
        {"error": "request body too large: the limit is 1024 bytes", "code": "body_too_large"},
    ),
    402: (
        "The organization's credit balance is spent. 1 credit (not debited).",
        {"error": "the organization's credit balance is spent; add credits", "code": "credits_exhausted"},
    ),
    424: (
        "The upstream platform failed or rejected the account's credentials (Retry-After when "
        "it named a wait). 1 credit.",
        {"error": "upstream rejected the account's credentials", "code": "upstream_credentials_rejected"},
    ),
    431: (
        "A header line, or the request head, is larger than its limit (answered at the edge, "
        "the connection closed). 0 credits.",
        {"error": "a header line is limited to 8192 bytes", "code": "header_too_large"},
    ),
    500: (
        "Internal error (no details). 0 credits: nothing is charged for our failures.",
        {"error": "internal server error", "code": "internal_error"},
    ),
    503: (
        "The database is unavailable, or the process is at its connection limit; see "
        "Retry-After. 0 credits.",
        {"error": "database unavailable; try again shortly", "code": "database_unavailable"},
    ),
}

#: The 400 example of a route with an account: the check every one of them makes.
_PATH_400 = {"error": "invalid path parameter 'account_id': must be an integer in ASCII digits",
             "code": "invalid_parameter"}


def error_spec(status: int, description: str, example: Mapping[str, str]) -> ResponseSpec:
    """An error answer of the document: ``ErrorBody`` with one fixed example."""
    # No generated examples: litestar makes them with polyfactory and faker, which the
    # image leaves out (and random example text documents nothing).
    return ResponseSpec(
        data_container=ErrorBody,
        description=description,
        generate_examples=False,
        examples=[Example(summary=example["code"], value=dict(example))],
    )


def error_statuses(method: str, path: str, *, calls_upstream: bool) -> list[int]:
    """The statuses a gated route can answer besides 200."""
    own = {
        404: "{account_id" in path or calls_upstream,  # an unknown account; upstream's not found
        409: "{account_id" in path,  # a disconnected account
        424: calls_upstream,
        413: method in {"POST", "PUT", "PATCH"},
    }
    return [status for status in ERRORS if own.get(status, True)]


def error_responses(method: str, path: str, permission: str, *, calls_upstream: bool) -> dict[int, ResponseSpec]:
    specs = {}
    for status in error_statuses(method, path, calls_upstream=calls_upstream):
        description, example = ERRORS[status]
        if status == 400 and "{account_id" in path:
            example = _PATH_400
        example = {**example, "error": example["error"].format(permission=permission)}
        specs[status] = error_spec(status, description, example)
    return specs


def answer_type(fn: Callable[..., Any]) -> Any:
    """What the gate's wrapper returns for ``fn``: ``Answer[T]`` for ``-> Envelope[T]``
    (``Answer[Any]`` for a bare ``Envelope``), else ``fn``'s own return type (a stream)."""
    returned = get_type_hints(fn).get("return")
    if returned is Envelope:
        return Answer[Any]
    if get_origin(returned) is Envelope:
        (data,) = get_args(returned)
        # Named after its data (``ChatsPageAnswer``), not Litestar's module-qualified alias.
        answer = Answer[data]  # type: ignore[valid-type]  # a type made at run time, from fn's annotation
        return Annotated[answer, KwargDefinition(schema_component_key=f"{data.__name__}Answer")]
    return returned


# --- headers ---------------------------------------------------------------------------------


def _header(description: str, kind: OpenAPIType = OpenAPIType.INTEGER, *, required: bool = True) -> OpenAPIHeader:
    return OpenAPIHeader(schema=Schema(type=kind), description=description, required=required)


REQUEST_ID = _header(
    "The request's id: the caller's X-Request-ID when it is 1 to 64 of A-Z a-z 0-9 . _ : -, "
    "else a new one. Logged and kept on the request's ledger row.",
    OpenAPIType.STRING,
)
#: Sent on every answer of a request that passed the key check (not on a 401).
METERING = {
    "X-RateLimit-Limit-Minute": _header("Requests allowed per minute window (the organization's)."),
    "X-RateLimit-Remaining-Minute": _header("Requests left in the current minute window."),
    "X-RateLimit-Limit-Day": _header("Requests allowed per day window."),
    "X-RateLimit-Remaining-Day": _header("Requests left in the current day window."),
    "X-Credits-Used": _header("Credits this request used: 1, or 0 (429, 5xx)."),
}
RETRY_AFTER = _header("Seconds to wait before trying again.")


def answer_headers(status: int, *, gated: bool) -> dict[str, OpenAPIHeader]:
    """The headers an answer with ``status`` carries (``gated``: a route behind the gate)."""
    if status in {431, 414}:  # refused at the edge, before the app: its own small answer
        return {}
    headers = {"X-Request-ID": REQUEST_ID}
    if gated and status not in {401, 503}:
        # A 500 carries them only when it happened past the gate.
        headers |= METERING if status != 500 else {name: _optional(h) for name, h in METERING.items()}
    if status in {429, 503}:
        headers["Retry-After"] = RETRY_AFTER
    elif status == 424:
        headers["Retry-After"] = _optional(RETRY_AFTER)
    if status == 503:  # the edge's 503 (connection limit) comes without an id
        headers["X-Request-ID"] = _optional(REQUEST_ID)
    return headers


def _optional(header: OpenAPIHeader) -> OpenAPIHeader:
    return OpenAPIHeader(schema=header.schema, description=header.description, required=False)


@dataclass
class AnswerOperation(Operation):
    """An operation of a route outside the gate, with the headers of each answer."""

    gated = False

    def __post_init__(self) -> None:
        for status, response in (self.responses or {}).items():
            if isinstance(response, OpenAPIResponse) and status.isdigit():
                response.headers = {**(response.headers or {}), **answer_headers(int(status), gated=self.gated)}


@dataclass
class GatedOperation(AnswerOperation):
    """An operation of a gated route."""

    gated = True
