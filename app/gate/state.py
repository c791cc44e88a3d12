"""The gate's per-request state, reachable from every step of one request.

The middleware opens it with the gate statement's result once the request has passed the
gate's checks; the gate's dependencies and the post-validation step read it. A context
variable carries it because the post-validation step wraps the handler function, which
Litestar calls with the handler's arguments only.
"""

from __future__ import annotations

from contextvars import ContextVar

from litestar.types import Receive, Scope

from app.gate.statement import GateResult

#: The ``opt`` key a gated route's permission is kept under (set by ``v1_get``/``v1_post``).
PERMISSION_OPT = "permission"


class GateState:
    __slots__ = ("account_id", "has_body", "receive", "result", "scope")

    def __init__(self, result: GateResult, account_id: int | None, scope: Scope, receive: Receive, has_body: bool):
        self.result = result
        self.account_id = account_id
        self.scope = scope
        self.receive = receive
        #: The request announced a body (``Content-Length`` or ``Transfer-Encoding``).
        self.has_body = has_body


_current: ContextVar[GateState | None] = ContextVar("relay_gate", default=None)


class open_gate:  # noqa: N801 - used as a function: ``with open_gate(state):``
    """``state`` is the current request's gate state inside the block (a class, not a
    generator: this runs on every request)."""

    __slots__ = ("_state", "_token")

    def __init__(self, state: GateState) -> None:
        self._state = state

    def __enter__(self) -> None:
        self._token = _current.set(self._state)

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)


def current_gate() -> GateState:
    state = _current.get()
    if state is None:
        # Only reachable through a route wired without the gate: a bug, hence a 500.
        raise RuntimeError("no gate state: this handler is not behind the gate")
    return state
