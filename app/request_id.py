"""The request id: chosen once per request, carried in a context variable.

Kept apart from the middleware that sets it (``app.request_context``) so the gate can read
it without importing the middleware.
"""

from __future__ import annotations

import os
import re
from contextvars import ContextVar

HEADER = b"x-request-id"
_SANE = re.compile(rb"[A-Za-z0-9._:-]{1,64}")

#: The current request's id (None outside a request).
request_id: ContextVar[str | None] = ContextVar("relay_request_id", default=None)


def choose_request_id(incoming: bytes | None) -> str:
    """The caller's id when it is sane, else a fresh one."""
    if incoming is not None and _SANE.fullmatch(incoming):
        return incoming.decode("ascii")
    return os.urandom(16).hex()  # as random as uuid4().hex, without building a UUID
