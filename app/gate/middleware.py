"""The gate's ASGI middleware: the response side of metering.

It opens the request's ``GateState`` for routes that declare a permission, then, on the
way out, puts the rate limits and the credits used in the response headers of every
metered response (successes, errors past authentication, 429s) and hands the final status
to the ledger's ``StatusRecorder``. Everything else passes through untouched.
"""

from __future__ import annotations

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.gate.metering import GateResult
from app.gate.state import PERMISSION_OPT, GateState, _current


def rate_limit_headers(result: GateResult) -> list[tuple[bytes, bytes]]:
    limits = result.rate_limits()
    values = {
        "x-ratelimit-limit-minute": limits.limit_minute,
        "x-ratelimit-remaining-minute": limits.remaining_minute,
        "x-ratelimit-limit-day": limits.limit_day,
        "x-ratelimit-remaining-day": limits.remaining_day,
        "x-credits-used": result.credits_used,
    }
    return [(name.encode(), str(value).encode()) for name, value in values.items()]


def gate_middleware(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        permission = scope["route_handler"].opt.get(PERMISSION_OPT) if scope["type"] == "http" else None
        if permission is None:
            await app(scope, receive, send)
            return
        state = GateState(permission=permission)
        status: list[int] = []

        async def send_with_limits(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
                result = state.result
                if result is not None and result.authenticated:
                    message["headers"] = [*message.get("headers", []), *rate_limit_headers(result)]
            await send(message)

        token = _current.set(state)
        try:
            await app(scope, receive, send_with_limits)
        finally:
            _current.reset(token)
            _record_status(scope, state, status[0] if status else 500)

    return middleware


def _record_status(scope: Scope, state: GateState, status: int) -> None:
    result = state.result
    # 403/404 verdicts were written by the gate statement itself.
    if result is None or result.ledger_id is None or result.verdict is not None:
        return
    scope["litestar_app"].state.ledger_statuses.record(result.ledger_id, status)
