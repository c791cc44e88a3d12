"""The gate's per-request state, reachable from every step of one request, and the gate's
per-process runtime.

The middleware opens the state with the gatekeeper's result once the request has passed
the gate's checks; the gate's dependencies and the post-validation step read it. A context
variable carries it because the post-validation step wraps the handler function, which
Litestar calls with the handler's arguments only. When the response has gone,
``finish(status)`` queues the request's ledger row.

A request answered 5xx (our failure), cut by its client (499) or refused past its
organization's fair share (429 ``concurrency_limit``) is charged nothing: its
row says so (credits 0, not debited) and its admission and credit go back to the
organization with that row (``LedgerWriter.give_back``), whatever the spec says about 5xx
(docs/api-decisions.md, "Nothing charged for our failures").
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

from litestar.types import HTTPScope, Receive

from app.errors import CLIENT_CLOSED
from app.gate.allowance import request_back
from app.gate.ledger import LedgerWriter
from app.gate.statement import GateResult
from app.request_id import request_id

if TYPE_CHECKING:
    from app.gate.keeper import Gatekeeper
    from app.gate.shares import Held

#: The ``opt`` key a gated route's permission is kept under (set by ``v1_get``/``v1_post``).
PERMISSION_OPT = "permission"
#: Where a route outside the gate that counts its request itself (``MinuteView``) leaves
#: it in the ASGI scope's state, for the middleware to ``finish`` with the final status.
METERED_STATE = "relay_metered"


class GateRuntime:
    """What the gate uses in an API process: built with the app, filled by its lifespan
    (``app.asgi``), handed to the app's middleware, so a request finds it without a lookup."""

    __slots__ = ("gatekeeper", "ledger")

    # Set by the lifespan before the app takes its first request.
    gatekeeper: Gatekeeper
    ledger: LedgerWriter


TOO_MANY_REQUESTS = 429


def charges(status: int) -> bool:
    """Whether a request answered ``status`` past the gate costs its credit and window slot:
    not a 5xx or a cut request (499), nor a 429, which past the gate is always a fair share's
    ``concurrency_limit`` (the rate windows' 429 is refused before a request has a state)."""
    return status < CLIENT_CLOSED and status != TOO_MANY_REQUESTS


class GateState:
    __slots__ = ("account_id", "has_body", "headers", "held", "ledger", "receive", "result", "scope")

    def __init__(
        self, result: GateResult, account_id: int | None, scope: HTTPScope, receive: Receive, has_body: bool,
        ledger: LedgerWriter, headers: list[tuple[bytes, bytes]],
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
        #: The fair share the route declared (``app.gate.shares``), given back in ``finish``.
        self.held: Held | None = None

    def finish(self, status: int) -> None:
        """The response went out with ``status``: give back its share, queue its ledger row."""
        if self.held is not None:
            self.held.release()
        result, scope = self.result, self.scope
        org, key_id = result.organization_id, result.key_id
        assert org is not None and key_id is not None  # a state is opened past the 401: the key was found
        charged = charges(status)
        self.ledger.record((
            org, key_id, self.account_id, scope["method"], scope["path_template"], status,
            result.debited and charged, result.at, request_id.get(), 1 if charged else 0,
        ))
        if not charged:
            self.ledger.give_back(request_back(org, result.at, credits=int(result.debited)))


class MinuteView:
    """A request outside the gate counted in its organization's minute window only, for no
    credit (``GET /status``): its ledger row says credits 0, not debited; answered 5xx or cut,
    its admission goes back."""

    __slots__ = ("at", "key_id", "ledger", "organization_id", "scope")

    def __init__(self, organization_id: int, key_id: int, at: float, scope: HTTPScope, ledger: LedgerWriter) -> None:
        self.organization_id = organization_id
        self.key_id = key_id
        self.at = at  # when it was counted: unix seconds, the database's clock
        self.scope = scope
        self.ledger = ledger

    def finish(self, status: int) -> None:
        scope = self.scope
        self.ledger.record((
            self.organization_id, self.key_id, None, scope["method"], scope["path_template"], status, False,
            self.at, request_id.get(), 0,
        ))
        if status >= CLIENT_CLOSED:
            self.ledger.give_back(request_back(self.organization_id, self.at, credits=0, day=False))


#: The current request's gate state: set by the app's middleware around the route's
#: handling (``app.request_context``: a ``set`` and a ``reset``, no context manager, on
#: every request), read through ``current_gate``.
CURRENT_GATE: ContextVar[GateState | None] = ContextVar("relay_gate", default=None)


def current_gate() -> GateState:
    state = CURRENT_GATE.get()
    if state is None:
        # Only reachable through a route wired without the gate: a bug, hence a 500.
        raise RuntimeError("no gate state: this handler is not behind the gate")
    return state
