"""One prepared statement's rows, run on the connection's libpq handle (``psycopg.pq``).

The store's page reads (``app.store.batched``) are the API's hottest statements: a few
statements, run again and again, each taking an account number and a JSON batch. Through a
psycopg cursor each run paid for what such a read never needs -- rewriting the query's
placeholders, looking the statement up in the connection's prepared-statement cache, a
generator handing each socket wait to the event loop with a timer -- about half of the
driver's CPU on a store page, more than the statement's own send, wait and row loading
(docs/benchmarks.md, issue 31). So these reads talk to libpq through psycopg's public
low-level API: each statement is prepared once per connection under a name of its own
(``relay_<n>``, apart from psycopg's ``_pg3_<n>``), its parameters are sent as text, the
socket is awaited once, and the rows are loaded by the connection's own ``Transformer``,
so every type comes back exactly as a psycopg cursor would give it.

What stays psycopg's: the connection (opened, configured and checked by the pool), its
adapters, its notice handling, and its errors -- a failed statement raises the psycopg
error class of its SQLSTATE, a lost connection ``psycopg.OperationalError``. A connection
this leaves busy (its caller cancelled mid-statement) is discarded by the pool's
``putconn``, which hands out no connection that is not idle. A prepared statement that has
gone from the server (``DEALLOCATE``, ``DISCARD ALL`` by a pooler) is prepared again once.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import re
import weakref
from typing import Any

from psycopg import AsyncConnection, OperationalError, errors, pq
from psycopg.adapt import Transformer

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_NAMES = itertools.count(1)
#: SQLSTATE 26000: the statement's name is not prepared on this connection (any more).
_NOT_PREPARED = "26000"


class _Session:
    """What one connection holds for these reads: its prepared names, its row loader, and
    while ``WarmPool`` has it out of its pool, the reader watching its socket."""

    __slots__ = ("names", "loader", "leased", "watch")

    def __init__(self, conn: AsyncConnection) -> None:
        self.names: dict[str, bytes] = {}
        self.loader = Transformer(conn)
        self.leased = False
        self.watch: _Watch | None = None


class _Watch:
    """One reader on a connection's socket, registered at the first wait of a lease and
    removed when the lease ends (``release``), instead of a reader added and removed for
    every wait: eight system calls a statement (more under gVisor), about a tenth of a
    store page's CPU (docs/benchmarks.md, issue 31).

    The socket is read only by these reads while the lease lasts: psycopg's own waits
    would replace the reader and then remove it. Data with nobody waiting is an idle
    backend speaking first -- a goodbye -- so the reader stops (it would be called on every
    turn of the loop) and ``spoke`` tells ``WarmPool`` to hand the connection back."""

    __slots__ = ("_loop", "_fd", "_waiter", "_on", "spoke")

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self._loop = loop
        self._fd = fd
        self._waiter: asyncio.Future[None] | None = None
        self._on = False
        self.spoke = False

    def _readable(self) -> None:
        waiter = self._waiter
        if waiter is None:
            self.spoke = True
            self.stop()
        elif not waiter.done():  # the loop may call it again before the waiting task runs
            waiter.set_result(None)

    async def readable(self) -> None:
        if not self._on:
            self._loop.add_reader(self._fd, self._readable)
            self._on = True
        self._waiter = self._loop.create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None

    def stop(self) -> None:
        if self._on:
            self._loop.remove_reader(self._fd)
            self._on = False


_SESSIONS: weakref.WeakKeyDictionary[AsyncConnection, _Session] = weakref.WeakKeyDictionary()


@functools.lru_cache(maxsize=512)
def positional(statement: str) -> tuple[bytes, tuple[str, ...]]:
    """``statement`` with its ``%(name)s`` placeholders as ``$1, $2 ...`` (a name used twice
    is one parameter) and ``%%`` as ``%``; and the parameter names in order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return _PLACEHOLDER.sub(number, statement).replace("%%", "%").encode(), tuple(names)


def _session(conn: AsyncConnection) -> _Session:
    session = _SESSIONS.get(conn)
    if session is None:
        session = _SESSIONS[conn] = _Session(conn)
    return session


def lease(conn: AsyncConnection) -> None:
    """``conn`` is out of its pool for these reads alone until ``release``: their waits may
    keep one reader on its socket meanwhile."""
    _session(conn).leased = True


def release(conn: AsyncConnection) -> None:
    """End ``conn``'s lease: its reader is removed (before the pool, or psycopg, uses the
    socket again)."""
    session = _SESSIONS.get(conn)
    if session is not None:
        session.leased = False
        if session.watch is not None:
            session.watch.stop()
            session.watch = None


def quiet(conn: AsyncConnection) -> bool | None:
    """Whether a leased connection's backend has said nothing since its last read (None:
    not known here, no reader watched it)."""
    session = _SESSIONS.get(conn)
    if session is None or session.watch is None:
        return None
    return not session.watch.spoke


def _text(value: Any) -> bytes:
    """A parameter in PostgreSQL's text form; its type comes from the statement's cast."""
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, int) and not isinstance(value, bool):
        return b"%d" % value
    raise TypeError(f"a prepared read takes str and int parameters, not {type(value).__name__}")


async def fetch_all(conn: AsyncConnection, statement: str, params: dict[str, Any]) -> list[tuple]:
    """The rows of ``statement`` (``%(name)s`` placeholders, each cast to its type in the
    text) for ``params``, as tuples; on ``conn``, checked out by the caller alone."""
    session = _session(conn)
    watch = session.watch
    if watch is None and session.leased:
        watch = session.watch = _Watch(asyncio.get_running_loop(), conn.pgconn.socket)
    text, names = positional(statement)
    values = [_text(params[name]) for name in names]
    for attempt in (1, 2):
        name = session.names.get(statement)
        if name is None:
            name = b"relay_%d" % next(_NAMES)
            conn.pgconn.send_prepare(name, text)
            _check(await _results(conn.pgconn, watch), conn)
            session.names[statement] = name
        conn.pgconn.send_query_prepared(name, values)
        result = (await _results(conn.pgconn, watch))[-1]
        if result.status == pq.ExecStatus.FATAL_ERROR and attempt == 1 \
                and result.error_field(pq.DiagnosticField.SQLSTATE) == _NOT_PREPARED.encode():
            del session.names[statement]  # deallocated behind our back: prepare it again
            continue
        _check([result], conn)
        loader = session.loader
        loader.set_pgresult(result)
        return loader.load_rows(0, result.ntuples, tuple)
    raise AssertionError("unreachable: the second attempt returns or raises")


def _check(results: list[pq.abc.PGresult], conn: AsyncConnection) -> None:
    for result in results:
        if result.status == pq.ExecStatus.FATAL_ERROR:
            raise errors.error_from_result(result, encoding=conn.info.encoding)


async def _results(pgconn: pq.abc.PGconn, watch: _Watch | None) -> list[pq.abc.PGresult]:
    """Every result of the query just sent (flushed first), waiting on the socket as needed
    (through ``watch``, the lease's reader, where there is one)."""
    loop = asyncio.get_running_loop()
    while pgconn.flush():  # a nonblocking connection may not have sent it all at once
        await _ready(loop, pgconn.socket, writer=True)
    results = []
    while True:
        if pgconn.is_busy():
            if watch is not None:
                await watch.readable()
            else:
                await _ready(loop, pgconn.socket, writer=False)
            pgconn.consume_input()  # raises OperationalError on a lost connection
            continue
        result = pgconn.get_result()
        if result is None:
            break
        results.append(result)
    if not results:
        raise OperationalError("the server answered no result")
    return results


async def _ready(loop: asyncio.AbstractEventLoop, fd: int, *, writer: bool) -> None:
    future = loop.create_future()

    def wake() -> None:  # the loop may call it again before the task runs
        if not future.done():
            future.set_result(None)

    (loop.add_writer if writer else loop.add_reader)(fd, wake)
    try:
        await future
    finally:
        (loop.remove_writer if writer else loop.remove_reader)(fd)
