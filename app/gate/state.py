"""The gate's per-request state, reachable from every step of one request.

The middleware opens it, the guard fills it (the gate statement's result), the
dependencies and the post-validation step read it. A context variable carries it because
the post-validation step wraps the handler function, which Litestar calls with the
handler's arguments only.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from litestar import Request

from app.gate.metering import GateResult

#: The ``opt`` key a route declares its permission under: ``opt={"permission": "api_..."}``.
PERMISSION_OPT = "permission"


@dataclass(slots=True)
class GateState:
    permission: str
    result: GateResult | None = None
    request: Request | None = None
    account_id: int | None = None


_current: ContextVar[GateState | None] = ContextVar("relay_gate", default=None)


def current_gate() -> GateState:
    state = _current.get()
    if state is None or state.result is None:
        # Only reachable through a route wired without the gate: a bug, hence a 500.
        raise RuntimeError("no gate state: this handler is not behind the gate")
    return state
