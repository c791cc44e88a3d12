"""The app's one middleware: every request's id, log context and metrics, and the gate.

The id is the caller's ``X-Request-ID`` when it is sane (1 to 64 characters from
``A-Z a-z 0-9 . _ : -``), else a new one (32 hex digits). It is answered as
``X-Request-ID``, bound to every log line written while the request is served (structlog
context variables) and handed to the gate, which stores it on the request's ledger row.

Each request writes one ``request_finished`` line at DEBUG, or at INFO with
``RELAY_ACCESS_LOG`` (the access log), and at WARNING for a 5xx either way; a request whose
client went away before its answer is ``client_closed`` (INFO, status 499 in the metrics
and on its ledger row: charged nothing), not a 500: a client that leaves mid-body, one
whose streamed answer was cut off, and one that was gone when a slow answer was ready
(``app.disconnects``).
Counting costs no await and no database work: a counter and a histogram sample on the way
out, labelled with the route template, the method, the status and the source -- ``store``
when the answer came from the database, ``upstream`` when the request called the upstream,
``none`` for refusals and errors that used neither and for the routes outside the gate
(health, documentation, status page).

A route declared with a permission passes the gate here (``app.gate.middleware``), and a
request its route's shortcut reads is answered past Litestar's parameter and response
machinery (``app.gate.shortcut``): one middleware, one wrapper around ``send`` for the
request id's bookkeeping and the gate's headers together, since every layer costs each
request a few microseconds.
"""

from __future__ import annotations

import logging
import time

import structlog
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.disconnects import CHECK_AFTER, client_gone
from app.errors import CLIENT_CLOSED, answered_status
from app.gate.middleware import gate_here, pass_gate, uncharged
from app.gate.shortcut import Shortcuts
from app.gate.state import CURRENT_GATE, METERED_STATE, PERMISSION_OPT, GateRuntime, charges
from app.metrics import count_request
from app.request_id import HEADER, choose_request_id, request_id
from app.upstream.stats import track_upstream_calls

logger = logging.getLogger(__name__)

#: Where the middleware leaves the id in the ASGI scope's state for the response hook.
STATE_KEY = "relay_request_id"

def _incoming(scope: Scope) -> bytes | None:
    for name, value in scope["headers"]:
        if name == HEADER:
            return value
    return None


async def add_request_id_header(message: Message, scope: Scope) -> None:
    """``before_send`` hook: every response carries ``X-Request-ID``, errors raised through
    the middleware included (Litestar answers those outside it). A request refused before
    routing (unknown path) gets an id of its own here."""
    if message["type"] == "http.response.start":
        state = scope.setdefault("state", {})
        rid = state.get(STATE_KEY) or state.setdefault(STATE_KEY, choose_request_id(None))
        message["headers"] = [*message.get("headers", ()), (HEADER, rid.encode("ascii"))]


def request_middleware(app: ASGIApp, gate: GateRuntime, access_log: bool = False) -> ASGIApp:
    """The middleware around ``app``; ``gate``: the app's gate runtime (``app.asgi``);
    ``access_log``: the ``request_finished`` lines at INFO."""
    finished_level = logging.INFO if access_log else logging.DEBUG
    shortcuts = Shortcuts()

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:  # the str "http", as the scope's type names it
            await app(scope, receive, send)
            return
        rid = choose_request_id(_incoming(scope))
        scope["state"][STATE_KEY] = rid  # for add_request_id_header
        request_id.set(rid)
        # Not reset afterwards: an error raised through here is logged by the app's exception
        # handler, outside this function, and must carry the id too. Every request binds anew.
        structlog.contextvars.bind_contextvars(request_id=rid)
        started = time.perf_counter()
        status = 500
        answered = False  # the response's last message went to a client still there
        gate_headers: list[tuple[bytes, bytes]] = []

        async def send_status(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status = message["status"]
                if gate_headers:
                    metered = gate_headers if charges(status) else uncharged(gate_headers)
                    message["headers"] = [*message.get("headers", ()), *metered]
            elif not message.get("more_body", False):
                answered = time.perf_counter() - started < CHECK_AFTER or not client_gone(receive)
            await send(message)

        permission = scope["route_handler"].opt.get(PERMISSION_OPT)
        meter = None
        try:
            with track_upstream_calls() as upstream:
                if permission is None:
                    await app(scope, receive, send_status)
                else:
                    meter = gate_here(scope, receive, permission, gate) or await pass_gate(
                        scope, receive, permission, gate)
                    gate_headers = meter.headers
                    opened = CURRENT_GATE.set(meter)
                    try:
                        await shortcuts.serve(scope, receive, send_status, app)
                    finally:
                        CURRENT_GATE.reset(opened)
            if not answered and status < 500:  # a cut stream, or nobody left to answer
                status = CLIENT_CLOSED
        except Exception as exc:  # the gate's refusals; an error after the response started
            status = answered_status(exc)
            raise
        finally:
            # The request's ledger row (the gate's, or a metered route's outside it: /status).
            meter = meter or scope["state"].get(METERED_STATE)
            if meter is not None:
                meter.finish(status)
            source = "upstream" if upstream.calls else "store" if permission is not None and status < 400 else "none"
            route, method = scope["path_template"], scope["method"]
            elapsed = time.perf_counter() - started
            count_request(route, method, status, source, elapsed)
            level = logging.WARNING if status >= 500 else logging.INFO if status == CLIENT_CLOSED else finished_level
            if logger.isEnabledFor(level):  # the ledger and /metrics count every request anyway
                event = "client_closed" if status == CLIENT_CLOSED else "request_finished"
                logger.log(level, event, extra={
                    "route": route, "method": method, "status": status, "source": source,
                    "ms": round(elapsed * 1000, 2),
                })

    return middleware

