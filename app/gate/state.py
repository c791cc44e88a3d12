"""The gate's per-request state, reachable from every step of one request, and the gate's
per-process runtime.

The middleware opens the state with the gatekeeper's result once the request has passed
the gate's checks; the gate's dependencies and the post-validation step read it. A context
variable carries it because the post-validation step wraps the handler function, which
Litestar calls with the handler's arguments only. When the response has gone,
``finish(status)`` queues the request's ledger row.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

from litestar.types import Receive, Scope

from app.gate.ledger import LedgerWriter, copy_line
from app.gate.statement import GateResult
from app.params import BIGINT_MAX
from app.request_id import request_id

if TYPE_CHECKING:
    from app.gate.keeper import Gatekeeper

#: The ``opt`` key a gated route's permission is kept under (set by ``v1_get``/``v1_post``).
PERMISSION_OPT = "permission"


class GateRuntime:
    """What the gate uses in an API process: built with the app, filled by its lifespan
    (``app.asgi``), handed to the app's middleware, so a request finds it without a lookup."""

    __slots__ = ("gatekeeper", "ledger")

    def __init__(self) -> None:
        self.gatekeeper: Gatekeeper | None = None
        self.ledger: LedgerWriter | None = None


class GateState:
    __slots__ = ("account_id", "has_body", "headers", "ledger", "receive", "result", "scope")

    def __init__(
        self, result: GateResult, account_id: int | None, scope: Scope, receive: Receive, has_body: bool,
        ledger: LedgerWriter | None = None, headers: list[tuple[bytes, bytes]] | None = None,
    ):
        self.result = result
        self.account_id = account_id
        self.scope = scope
        self.receive = receive
        #: The request announced a body (``Content-Length`` or ``Transfer-Encoding``).
        self.has_body = has_body
        self.ledger = ledger
        #: Rate limits and credits used, for the response's headers.
        self.headers = headers

    def finish(self, status: int) -> None:
        """The response went out with ``status``: queue the request's ledger row."""
        result, scope, account_id = self.result, self.scope, self.account_id
        self.ledger.record(copy_line(
            result.organization_id, result.key_id,
            account_id if account_id is not None and 1 <= account_id <= BIGINT_MAX else None,
            scope["method"], scope["path_template"], status, result.debited, result.at, request_id.get(),
        ))


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
