"""The psycopg connection pool of the API process."""

from __future__ import annotations

import asyncio
import select
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from psycopg import AsyncConnection, pq
from psycopg_pool import AsyncConnectionPool
from psycopg_pool.base import AttemptWithBackoff

from app.db import prepared
from app.db.urls import plain_url
from app.settings import Settings

# psycopg_pool retries a lost server after 1, 2, 4, 8 ... s, so after a restart requests
# would get 503s until the next retry, seconds later. Retry every ~0.25 s instead: an
# attempt against a stopped server is a refused connect, cheap for both sides.
AttemptWithBackoff.INITIAL_DELAY = 0.25
AttemptWithBackoff.DELAY_BACKOFF = 1.0


def _socket_quiet(conn: AsyncConnection) -> bool:
    """Whether an idle connection's socket has nothing to read, without a round trip.

    An idle backend never talks first: when it has something to say it is saying goodbye
    (a restart's ``FATAL: terminating connection``, or the socket closing). Reading that
    state is a ``poll`` on the socket; asking the server (``check_connection``) is one
    more round trip per request, a quarter of a store page's database work.
    """
    if conn.closed or conn.broken:
        return False
    try:
        readable, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


def _kept_quiet(conn: AsyncConnection) -> bool:
    """``_socket_quiet`` for a connection ``WarmPool`` kept: what the reader of its lease
    heard, where one watched it (no system call), else the socket itself."""
    heard_nothing = prepared.quiet(conn)
    if heard_nothing is None:
        return _socket_quiet(conn)
    return heard_nothing and not (conn.closed or conn.broken)


async def check_on_checkout(conn: AsyncConnection) -> None:
    """The pool's ``check``: a connection whose socket is quiet is handed out as is; one
    with something to read (a goodbye, or a notice) is checked with a round trip, which
    raises for a dead one so the pool replaces it before a request gets it."""
    if not _socket_quiet(conn):
        await AsyncConnectionPool.check_connection(conn)


class checkout:  # noqa: N801 - used as a function: ``async with checkout(pool) as conn:``
    """A pooled connection for the block, without what ``pool.connection()`` adds around
    it: that one also enters the connection's own context, which commits on the way out
    (nothing to commit in autocommit) and times the usage -- a cost on every store page.
    The pool's ``putconn`` still rolls back or discards a connection left in a transaction
    or broken."""

    __slots__ = ("_pool", "_conn")

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def __aenter__(self) -> AsyncConnection:
        self._conn = await self._pool.getconn()
        return self._conn

    async def __aexit__(self, *exc: object) -> None:
        await self._pool.putconn(self._conn)


class WarmPool:
    """A pool's connection kept for the next read, when reads come back to back.

    A pool checkout and return (``getconn``/``putconn``: a lock, the pool's bookkeeping and
    its reset of the returned connection, twice) cost as much of a store page's CPU as the
    statement's own driver work (docs/benchmarks.md, issue 31). So the store's page reads
    give their connection back here: one is kept for the next read, and goes back to the
    pool once no read has used it for ``hold`` seconds (one timer per hold, not one per
    read). It stays checked out meanwhile, so the pool's bound counts it; a connection
    that is not idle and healthy goes straight back to the pool, and one kept is handed
    out again only if its backend said nothing meanwhile (``app.db.prepared.quiet``: the
    lease's reader heard nothing; else the quiet-socket check of a checkout, ``_socket_quiet``).
    A connection it hands out is for ``app.db.prepared.fetch_all`` alone: those reads keep one
    reader on its socket until it goes back to the pool (``lease`` and ``release`` there).
    However busy the reads, a connection goes back to the pool ``lease`` seconds after it
    came out of it, so the pool's own upkeep (``max_lifetime``, its checks) still reaches it.
    """

    __slots__ = ("pool", "hold", "lease", "_spare", "_used", "_taken", "_timer", "_returns", "_closed")

    def __init__(self, pool: AsyncConnectionPool, hold: float = 0.02, lease: float = 5.0) -> None:
        self.pool = pool
        self.hold = hold
        self.lease = lease
        self._spare: AsyncConnection | None = None
        self._used = 0.0
        #: When each connection handed out came out of the pool.
        self._taken: weakref.WeakKeyDictionary[AsyncConnection, float] = weakref.WeakKeyDictionary()
        self._timer: asyncio.TimerHandle | None = None
        self._returns: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def holding(self) -> bool:
        return self._spare is not None

    async def get(self) -> AsyncConnection:
        conn, self._spare = self._spare, None
        if conn is not None:
            if _kept_quiet(conn):
                return conn
            await self._give_back(conn)  # the pool discards it if it is broken
        conn = await self.pool.getconn()
        self._taken[conn] = time.monotonic()
        prepared.lease(conn)
        return conn

    async def _give_back(self, conn: AsyncConnection) -> None:
        prepared.release(conn)
        await self.pool.putconn(conn)

    async def put(self, conn: AsyncConnection) -> None:
        now = time.monotonic()
        if (self._spare is not None or self._closed or conn.broken or now - self._taken.get(conn, 0.0) > self.lease
                or conn.pgconn.transaction_status != pq.TransactionStatus.IDLE):
            await self._give_back(conn)
            return
        self._spare, self._used = conn, now
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.hold, self._expire)

    def _expire(self) -> None:
        self._timer = None
        if self._spare is None:
            return
        idle = time.monotonic() - self._used
        if idle < self.hold:  # used meanwhile: look again when it will have idled long enough
            self._timer = asyncio.get_running_loop().call_later(self.hold - idle, self._expire)
            return
        conn, self._spare = self._spare, None
        task = asyncio.get_running_loop().create_task(self._give_back(conn))
        self._returns.add(task)
        task.add_done_callback(self._returns.discard)

    async def close(self) -> None:
        """Give the kept connection back (before the pool closes); keep none from now on."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        conn, self._spare = self._spare, None
        if conn is not None:
            await self._give_back(conn)
        await asyncio.gather(*self._returns, return_exceptions=True)


def session_bounds(settings: Settings) -> tuple[str, ...]:
    """The ``SET`` statements that bound what one API connection may hold: a statement that
    runs too long is cancelled, a transaction left idle (a handler stuck between two
    statements) is ended by the server, its locks and its snapshot released. Set once per
    new connection rather than as the ``options`` startup parameter, which PgBouncer refuses."""
    return (
        f"SET statement_timeout = {round(settings.db_statement_timeout * 1000)}",
        f"SET idle_in_transaction_session_timeout = {round(settings.db_idle_in_transaction_timeout * 1000)}",
    )


def bounded_sessions(settings: Settings):
    """The pool's ``configure``: ``session_bounds`` on each connection it opens."""
    statements = session_bounds(settings)

    async def configure(conn: AsyncConnection) -> None:
        for statement in statements:
            await conn.execute(statement)

    return configure


def create_pool(database_url: str, settings: Settings, *, name: str = "relay") -> AsyncConnectionPool:
    """A pool that is not opened yet: ``await pool.open()`` in the process's lifespan.

    Its connections are in autocommit: the API's reads are single statements (a store
    page is two: coverage, then rows, each consistent on its own, see app/store/source.py),
    so a transaction would only add BEGIN and COMMIT round trips. Code that writes more
    than one statement opens ``conn.transaction()``. Each connection carries the API's
    statement and idle-in-transaction bounds (``session_bounds``).
    """
    configure = bounded_sessions(settings)
    pool = AsyncConnectionPool(
        plain_url(database_url),
        min_size=settings.db_pool_min,
        max_size=settings.db_pool_max,
        name=name,
        open=False,
        # After a database restart every pooled connection is dead, and a request must get
        # a fresh one, not a broken one.
        check=check_on_checkout,
        # While the server is unreachable a checkout fails fast (503), not after 30 s.
        timeout=settings.db_wait_timeout,
        configure=configure,
        kwargs={"application_name": f"creator-relay:{name}", "autocommit": True},
    )
    _CONFIGURES[pool] = configure
    return pool


def pool_conninfo(pool: AsyncConnectionPool) -> str:
    """The connection string of a pool made by ``create_pool`` (psycopg_pool also takes a
    function there; ours never)."""
    conninfo = pool.conninfo
    if callable(conninfo):
        raise TypeError("the pool's conninfo is a function: not a pool from create_pool")
    return conninfo


def pool_kwargs(pool: AsyncConnectionPool) -> dict[str, Any]:
    """The connection settings of a pool made by ``create_pool`` (see ``pool_conninfo``)."""
    kwargs = pool.kwargs
    if callable(kwargs):
        raise TypeError("the pool's kwargs are a function: not a pool from create_pool")
    return kwargs or {}


#: Each pool's ``configure``, for the connections opened beside it (``OwnConnection``):
#: psycopg_pool keeps it under no public name.
_CONFIGURES: weakref.WeakKeyDictionary[AsyncConnectionPool, Callable[[AsyncConnection], Awaitable[None]]] = (
    weakref.WeakKeyDictionary())


class OwnConnection:
    """One autocommitted connection with a pool's settings, kept apart from the pool, for a
    background writer that runs one statement at a time (the gate's meter, the ledger): no
    checkout per use, and psycopg keeps its prepared statements. Opened on first use,
    bounded like a checkout (an unreachable server is a prompt error, not a 30 s wait);
    replaced once it is broken. ``setup``: session settings run once on each new one, after
    the pool's own ``configure``."""

    def __init__(self, pool: AsyncConnectionPool, *, name: str | None = None, setup: tuple[str, ...] = ()) -> None:
        self._pool = pool
        self._settings = {**pool_kwargs(pool), "autocommit": True}
        if name is not None:
            self._settings["application_name"] = name
        self._setup = setup
        self._conn: AsyncConnection | None = None

    @property
    def usable(self) -> bool:
        """The connection is open and not broken (an error on it rolled back, not lost it)."""
        conn = self._conn
        return conn is not None and not conn.closed and not conn.broken

    async def get(self) -> AsyncConnection:
        if self._conn is None or not self.usable:
            self._conn = await self._connect()
        return self._conn

    async def _connect(self) -> AsyncConnection:
        conn = None
        try:
            async with asyncio.timeout(self._pool.timeout):
                conn = await AsyncConnection.connect(pool_conninfo(self._pool), **self._settings)
                configure = _CONFIGURES.get(self._pool)
                if configure is not None:
                    await configure(conn)
                for statement in self._setup:
                    await conn.execute(statement)
            return conn
        except BaseException as exc:
            if conn is not None:  # connected, but its set-up failed: not left open
                await conn.close()
            if isinstance(exc, TimeoutError):
                raise psycopg.OperationalError("connection attempt timed out") from None
            raise

    async def drop_if_broken(self) -> None:
        """After an error: close a broken connection, so the next ``get`` opens a new one."""
        if self._conn is not None and self._conn.broken:
            await self._conn.close()

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
