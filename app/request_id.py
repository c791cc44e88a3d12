"""The request id: chosen once per request, carried in a context variable.

Kept apart from the middleware that sets it (``app.request_context``) so the gate can read
it without importing the middleware.
"""

from __future__ import annotations

import itertools
import os
import re
from contextvars import ContextVar

HEADER = b"x-request-id"
_SANE = re.compile(rb"[A-Za-z0-9._:-]{1,64}")

#: The current request's id (None outside a request).
request_id: ContextVar[str | None] = ContextVar("relay_request_id", default=None)


# A fresh id is this process's random half and a counter: 32 hex digits, unique across
# processes and machines (64 random bits) and within the process (the counter), without a
# system call for randomness on every request. ``after_in_child``: a forked process draws
# its own half.
_process: list[str] = [os.urandom(8).hex()]
_counter = itertools.count()
os.register_at_fork(after_in_child=lambda: _process.__setitem__(0, os.urandom(8).hex()))


def choose_request_id(incoming: bytes | None) -> str:
    """The caller's id when it is sane, else a fresh one."""
    if incoming is not None and _SANE.fullmatch(incoming):
        return incoming.decode("ascii")
    return f"{_process[0]}{next(_counter) & 0xFFFFFFFFFFFFFFFF:016x}"
