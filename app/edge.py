"""The API's HTTP edge: what one connection may send, and for how long, before the app sees it.

``relay serve`` runs uvicorn with uvloop and httptools (docs/benchmarks-history.md, "Server stack").
httptools bounds nothing: it gathers a header value (and uvicorn the request target) by
appending each piece a read delivers, so the cost of one huge header grows with the square of
its size, and uvicorn sets no size limit for that parser and no deadline on a head or a body
that never completes. ``EdgeProtocol`` is uvicorn's httptools protocol with those bounds
(docs/operations.md, "Limits at the edge"):

- a request line, one header line or the whole head past its limit: 414 or 431 and the
  connection closed. Bytes are counted per read, before the parser has gathered more than a
  read or two beyond the limit, so a refusal costs the same whatever the request's size;
- a head not complete within ``api_head_timeout`` of the connection (or of its first byte on
  a kept-alive connection): 408 and closed (closed without a word when nothing came at all);
- a body not complete within ``api_body_timeout`` of its head, or far larger on the wire
  than any body the app accepts: closed (the app sees the client gone);
- connections past ``api_max_connections`` in one process (requests still running for
  clients that left count too): each request on them answers 503 with ``Retry-After`` and
  closes the connection; the connections already served go on.

The request path pays a few attribute stores per request: the checks run only when a read
leaves a head or a body incomplete, or when a head in one read is larger than the smallest
limit. Refusals are counted (``relay_http_edge_refusals_total``) and logged at most once per
reason every ``LOG_EVERY`` seconds.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app import metrics
from app.settings import Settings

logger = logging.getLogger(__name__)

# uvicorn's methods the protocol extends on the request path, called as plain functions (a
# class attribute looked up per call costs more than the check it wraps).
_data_received = HttpToolsProtocol.data_received
_on_message_begin = HttpToolsProtocol.on_message_begin
_on_headers_complete = HttpToolsProtocol.on_headers_complete
_on_message_complete = HttpToolsProtocol.on_message_complete

#: Where a connection stands: reading a head, reading a body, or between requests.
_HEAD, _BODY, _DONE = 0, 1, 2

#: Seconds between two log lines about refusals of one reason (the metric counts each).
LOG_EVERY = 10.0

#: What a client over the connection cap is told to wait (seconds).
RETRY_AFTER = 1


@dataclass(frozen=True, slots=True)
class EdgeLimits:
    """The bounds of one API process's connections (from ``Settings``; picklable, so uvicorn
    can hand them to the processes it spawns)."""

    max_request_line: int
    max_header: int
    max_head: int
    max_body_wire: int
    head_timeout: float
    body_timeout: float
    max_connections: int

    @classmethod
    def from_settings(cls, settings: Settings) -> EdgeLimits:
        return cls(
            max_request_line=settings.api_max_request_line_bytes,
            max_header=settings.api_max_header_bytes,
            max_head=settings.api_max_head_bytes,
            # a body's bytes on the wire: the content the app accepts, chunk framing and
            # trailers (which httptools gathers like headers)
            max_body_wire=settings.max_body_bytes + settings.api_max_head_bytes,
            head_timeout=settings.api_head_timeout,
            body_timeout=settings.api_body_timeout,
            max_connections=settings.api_max_connections,
        )


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The options of ``uvicorn.run`` that bound connections (the rest is ``relay serve``'s)."""
    return {
        # uvicorn takes any protocol factory as ``http``; a partial of a module-level class
        # pickles into the worker processes it spawns.
        "http": functools.partial(EdgeProtocol, limits=EdgeLimits.from_settings(settings)),
        "timeout_keep_alive": settings.api_keep_alive_timeout,
    }


class Refusal:
    """An answer the edge gives in the app's place: ``{"error", "code"}``, then the connection
    closes. ``raw()`` is written straight to the socket; the object itself is an ASGI app,
    which uvicorn runs in the app's place once a head is complete."""

    def __init__(self, status: int, reason: str, message: str, *, retry_after: int | None = None) -> None:
        self.status = status
        self.reason = reason
        self.body = json.dumps({"error": message, "code": reason}).encode()
        self.headers = [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(self.body)),
            (b"connection", b"close"),
        ]
        if retry_after is not None:
            self.headers.append((b"retry-after", b"%d" % retry_after))

    def raw(self) -> bytes:
        status_line = b"HTTP/1.1 %d %s\r\n" % (self.status, HTTPStatus(self.status).phrase.encode())
        return status_line + b"".join(b"%s: %s\r\n" % header for header in self.headers) + b"\r\n" + self.body

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})


@dataclass(frozen=True, slots=True)
class Refusals:
    request_line: Refusal
    header: Refusal
    head: Refusal
    head_timeout: Refusal
    connection_limit: Refusal


@functools.cache
def refusals(limits: EdgeLimits) -> Refusals:
    """The answers of one set of limits, built once per process."""
    return Refusals(
        request_line=Refusal(
            414, "request_line_too_long",
            f"the request line (method, path and query string) is limited to {limits.max_request_line} bytes",
        ),
        header=Refusal(431, "header_too_large", f"a header line is limited to {limits.max_header} bytes"),
        head=Refusal(
            431, "headers_too_large",
            f"the request line and headers together are limited to {limits.max_head} bytes",
        ),
        head_timeout=Refusal(
            408, "request_timeout",
            f"the request line and headers must arrive within {limits.head_timeout:g} s",
        ),
        connection_limit=Refusal(
            503, "connection_limit",
            "this API process has as many connections as it serves at once; retry shortly",
            retry_after=RETRY_AFTER,
        ),
    )


class EdgeProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the edge's bounds.

    A subclass, because the protocol class is the only place uvicorn lets a server see the
    bytes between the socket and the parser (its public extension point is ``http=``, a
    protocol class). It keeps uvicorn's own behaviour and reads three of its attributes:
    ``url`` (the request target gathered so far), ``headers`` (of the head just completed)
    and ``cycle`` (whether a response is under way), and swaps ``app`` for one request to
    answer a refusal through uvicorn's own response cycle, as uvicorn's ``limit_concurrency``
    does with its 503.
    """

    # Slots: uvicorn's attributes already fill the instance dictionary up to what CPython
    # shares between instances (30 keys); more would make every attribute access slower.
    __slots__ = ("_limits", "_refusals", "_phase", "_head_bytes", "_body_bytes", "_read",
                 "_check_above", "_over_cap", "_timer")

    def __init__(self, *args: Any, limits: EdgeLimits, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.url = b""  # uvicorn sets it when a message begins; read before that too
        self._limits = limits
        self._refusals = refusals(limits)
        self._phase = _HEAD
        self._head_bytes = -1  # bytes of the head in reads after the one it began in; -1: began in this read
        self._body_bytes = 0
        self._read = 0  # bytes of the latest read
        # A head that arrives in one read no longer than this breaks no size limit.
        self._check_above = min(limits.max_request_line, limits.max_header)
        self._over_cap = False
        self._timer: asyncio.TimerHandle | None = None

    # --- the connection ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # Requests whose client has gone may still run: they count like the connections they had.
        cap = self._limits.max_connections
        if len(self.connections) > cap or len(self.tasks) >= cap:
            self._over_cap = True
            self._check_above = -1  # so every head on it reaches the check that answers 503
        self._arm(self._limits.head_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._read = len(data)
        _data_received(self, data)
        if self._phase != _DONE:
            self._incomplete()

    # --- the parser's callbacks ---------------------------------------------------------------

    def on_message_begin(self) -> None:
        _on_message_begin(self)
        self._phase = _HEAD
        self._head_bytes = -1

    def on_headers_complete(self) -> None:
        self._phase = _BODY
        if self._timer is not None:
            self._disarm()
        # A head over several reads, or larger than the smallest limit, is measured exactly.
        if self._head_bytes >= 0 or self._read > self._check_above:
            refusal = self._complete_head_refusal()
            if refusal is not None:
                self._answer_with(refusal)
                return
        _on_headers_complete(self)

    def on_message_complete(self) -> None:
        _on_message_complete(self)
        self._phase = _DONE
        if self._timer is not None:
            self._disarm()

    # --- checks, off the request path -----------------------------------------------------------

    def _incomplete(self) -> None:
        """A read left a head or a body incomplete: count it, refuse past a limit, and set the
        phase's deadline when the phase begins."""
        if self.transport.is_closing():
            return
        limits = self._limits
        if self._phase == _HEAD:
            # The read a head began in may hold the end of another message: count from the next
            # (an exact lower bound, so no refusal is wrong; it comes at most a read later).
            if self._head_bytes < 0:
                self._head_bytes = 0
            else:
                self._head_bytes += self._read
            if len(self.url) > limits.max_request_line:
                self._refuse_open_head(self._refusals.request_line)
            elif self._head_bytes > limits.max_head:
                self._refuse_open_head(self._refusals.head)
            elif self._timer is None:
                self._arm(limits.head_timeout)
        else:
            if self._timer is None:  # the body began in this read
                self._body_bytes = 0
                self._arm(limits.body_timeout)
            else:
                self._body_bytes += self._read
            if self._body_bytes > limits.max_body_wire:
                self._cut("body_too_large")

    def _complete_head_refusal(self) -> Refusal | None:
        """The refusal a complete head earns, measured on what uvicorn gathered, if any."""
        if self._over_cap:
            return self._refusals.connection_limit
        limits = self._limits
        line = len(self.parser.get_method()) + len(self.url) + 10  # "GET /path HTTP/1.1"
        if line > limits.max_request_line:
            return self._refusals.request_line
        longest = total = 0
        for name, value in self.headers:
            size = len(name) + len(value) + 2  # "name: value"
            total += size + 2  # and its CRLF
            longest = max(longest, size)
        if longest > limits.max_header:
            return self._refusals.header
        if line + 2 + total > limits.max_head:
            return self._refusals.head
        return None

    def _answer_with(self, refusal: Refusal) -> None:
        """Answer the head just completed with ``refusal`` in the app's place (uvicorn closes
        the connection once it is sent: its ``connection: close``)."""
        _note(refusal.reason, self.client)
        app, self.app = self.app, refusal
        try:
            super().on_headers_complete()
        finally:
            self.app = app

    def _refuse_open_head(self, refusal: Refusal) -> None:
        """Answer an incomplete head and close (only closed while an earlier response on this
        connection is still being sent: the refusal would land inside it)."""
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(refusal.raw())
        self._cut(refusal.reason)

    def _cut(self, reason: str) -> None:
        _note(reason, self.client)
        self.transport.close()

    # --- deadlines ---------------------------------------------------------------------------

    def _arm(self, seconds: float) -> None:
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        self._timer.cancel()  # type: ignore[union-attr]
        self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self._phase == _HEAD and self._read == 0:
            _note("idle_timeout", self.client)  # connected and sent nothing
            self.transport.close()
        elif self._phase == _HEAD:
            self._refuse_open_head(self._refusals.head_timeout)
        else:
            self._cut("body_timeout")  # the app is reading it: it sees the client gone


# --- accounting of refusals --------------------------------------------------------------------

_last_logged: dict[str, tuple[float, int]] = {}


def _note(reason: str, client: tuple[str, int] | None) -> None:
    """Count one refusal; log the first of its reason, then at most one line per ``LOG_EVERY``
    seconds with the number since the last (a flood must not turn into a flood of logs)."""
    metrics.EDGE_REFUSALS.labels(reason).inc()
    now = time.monotonic()
    logged_at, unlogged = _last_logged.get(reason, (-LOG_EVERY, 0))
    if now - logged_at < LOG_EVERY:
        _last_logged[reason] = (logged_at, unlogged + 1)
        return
    _last_logged[reason] = (now, 0)
    logger.warning(
        "request_refused_at_edge",
        extra={"reason": reason, "count": unlogged + 1, "client": client[0] if client else None},
    )
