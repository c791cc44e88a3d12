"""The export route's response: a stream whose client must keep reading.

The ASGI server takes a chunk only once the client has read (nearly) all of the previous
one, so a client that stops reading leaves ``send`` waiting, and with it the export's
share, one encoded batch in memory and the connection. ``ExportStream`` gives each chunk
``RELAY_EXPORT_SEND_TIMEOUT`` seconds to go; past it the export ends unfinished (a chunked
body without its last chunk: the client cannot mistake it for a whole file), the server
closes the connection, and the request is recorded as cut by its client (499, charged
nothing). Litestar's own stream ends the same way when the client leaves.

Chunks go to the server in ``PIECE_BYTES`` pieces, each sent once the previous one has
drained: what a stalled export leaves in the server's write buffer after it ended (until the
client reads or leaves) is a piece, not a batch.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from anyio import CancelScope, create_task_group, move_on_after
from litestar.response import Stream
from litestar.response.base import ASGIResponse
from litestar.response.streaming import ASGIStreamingResponse
from litestar.types import Message, Receive, Send

logger = logging.getLogger(__name__)

#: Largest piece of a chunk handed to the server at once (its write buffer's high-water
#: mark is 64 KiB: a piece that size keeps at most about twice that buffered).
PIECE_BYTES = 64 * 1024


async def in_pieces(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """``chunks`` cut into pieces of at most ``PIECE_BYTES`` (empty chunks left out)."""
    async for chunk in chunks:
        view = memoryview(chunk)
        for at in range(0, len(view), PIECE_BYTES):
            yield bytes(view[at:at + PIECE_BYTES])


class _Stalled(Exception):
    """The client took no chunk for the whole send timeout."""


class _TimedSends(ASGIStreamingResponse):
    """Litestar's streaming response with a bound on each chunk's send (a class per bound:
    ``_timed``; Litestar's response has slots, so the bound cannot be an attribute)."""

    __slots__ = ()
    send_timeout: ClassVar[float]

    async def send_body(self, send: Send, receive: Receive) -> None:
        async with create_task_group() as group:
            group.start_soon(self._stream_or_stop, send, group.cancel_scope)
            await self._listen_for_disconnect(cancel_scope=group.cancel_scope, receive=receive)

    async def _stream_or_stop(self, send: Send, scope: CancelScope) -> None:
        async def bounded(message: Message) -> None:
            with move_on_after(self.send_timeout) as waited:
                await send(message)
            if waited.cancelled_caught:
                raise _Stalled

        try:
            await self._stream(bounded)
        except _Stalled:
            logger.info("export_stalled", extra={"send_timeout": self.send_timeout})
            scope.cancel()  # stop listening for a disconnect too: the response is over


@functools.lru_cache(maxsize=8)
def _timed(send_timeout: float) -> type[_TimedSends]:
    return type("TimedSends", (_TimedSends,), {"__slots__": (), "send_timeout": send_timeout})


class ExportStream(Stream):
    """``Stream`` of ``chunks`` (in pieces) whose pieces each go within ``send_timeout``
    seconds, or it ends."""

    __slots__ = ("send_timeout",)

    def __init__(self, chunks: AsyncIterator[bytes], *, send_timeout: float, **options: Any) -> None:
        super().__init__(in_pieces(chunks), **options)
        self.send_timeout = send_timeout

    def to_asgi_response(self, *args: Any, **kwargs: Any) -> ASGIResponse:
        response = super().to_asgi_response(*args, **kwargs)
        response.__class__ = _timed(self.send_timeout)  # same layout: no slot added
        return response
