"""What tells an API process that what its gate holds may be out of date.

The gate keeps the keys and the accounts it has seen (``app.gate.keeper``) so that most
requests cost no database work. Triggers on ``api_keys``, ``accounts`` and
``role_permissions`` (migration 0013) send ``NOTIFY relay_gate`` when they change; every
API process listens on a connection of its own and forgets what it holds on each
notification. PostgreSQL signals the listening backend when the changing transaction
commits and that backend sends the notification (normally within a millisecond), so
``relay keys revoke`` bites on the first request after it arrives. The event loop watches the
listening socket itself (a duplicate of its descriptor, so psycopg's own waiting is left
alone): the moment bytes wait there, in the same turn of the loop that would hand over a
request arriving with them and before that request's task runs, everything held is
forgotten -- before psycopg has even read the notification.

While the listening connection is down (at start, after a database restart) the gate holds
nothing (``live`` is False) and every request goes to the database, as it would without
this: nothing is trusted that no listener vouches for.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable

from psycopg import AsyncConnection

logger = logging.getLogger(__name__)

CHANNEL = "relay_gate"
#: Seconds between two attempts to listen again after the connection was lost.
RETRY_SECONDS = 0.5


class ChangeListener:
    """``LISTEN relay_gate`` on its own connection; ``on_change()`` on every notification,
    on every (re)connection and on every loss of the connection."""

    def __init__(self, conninfo: str, on_change: Callable[[], None], *, connect_timeout: float = 5.0, **kwargs) -> None:
        self._conninfo = conninfo
        self._kwargs = {**kwargs, "autocommit": True}
        self._on_change = on_change
        self._timeout = connect_timeout
        self._task: asyncio.Task[None] | None = None
        #: Whether a notification would reach this process now.
        self.live = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="gate-change-listener")

    async def _listen(self) -> None:
        async with asyncio.timeout(self._timeout):
            conn = await AsyncConnection.connect(self._conninfo, **self._kwargs)
        loop = asyncio.get_running_loop()
        watched = -1
        try:
            await conn.execute(f"LISTEN {CHANNEL}")
            # Readable: a notification (or the server closing the connection) waits. The
            # loop calls this while it does, every turn, until psycopg has read it.
            watched = os.dup(conn.pgconn.socket)
            loop.add_reader(watched, self._on_change)
            self._on_change()  # whatever happened while nobody listened
            self.live = True
            async for _ in conn.notifies():
                self._on_change()
        finally:
            self.live = False
            if watched >= 0:
                loop.remove_reader(watched)
                os.close(watched)
            self._on_change()
            await conn.close()

    async def _run(self) -> None:
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the database is away: try again
                logger.info("gate_listener_lost", extra={"error": type(exc).__name__})
            await asyncio.sleep(RETRY_SECONDS)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
