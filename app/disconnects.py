"""Whether a request's client is still there, asked of the ASGI server without waiting.

An ASGI server says that a request's client went away by answering ``receive()`` with
``http.disconnect``; once the request's body has been read, ``receive()`` otherwise waits
until the client goes or the response has gone. ``client_gone`` runs the coroutine
``receive()`` returns up to its first wait: an answer at once is the server's (a disconnect,
or the request's unread body, which nobody reads once the answer is ready); a wait means
the client is there, and the call is abandoned. That is what Starlette's
``is_disconnected`` does with a cancelled scope, without a turn of the event loop.

The request middleware asks only for requests that took longer than ``CHECK_AFTER``
(a client gives up on a slow answer), so a fast request pays nothing for it.
"""

from __future__ import annotations

import logging
from types import CoroutineType

from litestar.types import Receive

logger = logging.getLogger(__name__)

#: A request served faster than this is not checked for its client (about 1-2 µs each).
CHECK_AFTER = 0.05


def client_gone(receive: Receive) -> bool:
    """Whether the server already knows that the client went away (never waits)."""
    asked = receive()
    if type(asked) is not CoroutineType:  # a server's own awaitable: not asked
        return False
    try:
        asked.send(None)
    except StopIteration as answered:
        return answered.value.get("type") == "http.disconnect"
    except Exception as exc:  # noqa: BLE001 - asking must never break a response
        logger.info("client_check_failed", extra={"error": type(exc).__name__})
        return False
    asked.close()  # it waits: the client is there
    return False
