"""Upstream-style errors: every error body is ``{"error": message}``.

Raise :func:`bad_request` with the parameter's name and the rule it broke; the exception
handlers installed by ``create_sandbox_app`` render Litestar's own errors (404, validation)
the same way.
"""

from __future__ import annotations

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.types import ExceptionHandlersMap


class SandboxError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def bad_request(param: str, rule: str) -> SandboxError:
    """A 400 naming the parameter and the rule: ``raise bad_request("limit", "must be 1..100")``."""
    return SandboxError(400, f"{param}: {rule}")


def not_found(what: str) -> SandboxError:
    return SandboxError(404, f"{what} not found")


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response({"error": message}, status_code=status, headers=headers or {})


def _sandbox_error(_: Request, exc: SandboxError) -> Response:
    return error_response(exc.status, exc.message, exc.headers)


def _validation_error(_: Request, exc: ValidationException) -> Response:
    # Litestar lists each failing parameter in ``extra``; name them like bad_request does.
    parts = []
    for item in exc.extra or []:
        if isinstance(item, dict) and item.get("key"):
            parts.append(f"{item['key']}: {item.get('message', 'invalid')}")
    return error_response(400, "; ".join(parts) or str(exc.detail))


def _http_error(_: Request, exc: HTTPException) -> Response:
    return error_response(exc.status_code, str(exc.detail).lower() if exc.status_code == 404 else str(exc.detail))


EXCEPTION_HANDLERS: ExceptionHandlersMap = {
    SandboxError: _sandbox_error,
    ValidationException: _validation_error,
    HTTPException: _http_error,
}
