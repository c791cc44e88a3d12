"""Store or live: the one rule that decides where a store-served route's answer comes from.

Every store-served route asks :func:`store_or_live` with the window it needs. The answer
comes from the store when that window lies inside what the sync has stored completely for
the (account, resource) -- ``sync_state.coverage_start`` .. ``coverage_end``, see
docs/sync.md -- and from the upstream otherwise, or whenever the caller passed
``fresh=true``. A live answer is written back into the store (``remember``), so the next
request for the same rows can be served locally once the sync has confirmed the range.

The outcome carries where the data came from and as of when, for ``_meta._cache``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, Literal, Protocol, TypeVar

from litestar import Request
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app import params as date_params
from app.db.pool import checkout
from app.envelope import Cache, Envelope
from app.paging import NextParams, Shape, next_page_url
from app.params import DateWindow
from app.store.batched import BatchedReads, PerItem

logger = logging.getLogger(__name__)

T = TypeVar("T")

Source = Literal["store", "upstream"]


class UpstreamRead(Protocol):
    """One upstream read of the request's account: ``path`` with ``params``, its payload
    checked to have the members ``expect`` names."""

    def __call__(
        self, path: str, params: Mapping[str, Any], *, path_params: Mapping[str, object] | None = None,
        expect: Shape | None = None,
    ) -> Awaitable[dict[str, Any]]: ...

#: How far the store may lag behind now and still answer a window that ends "now" (the
#: default end of today, or any end in the future). Without it a window ending today is
#: never inside the coverage, because the sync can only have run in the past. The response
#: says ``synced_at``, and ``fresh=true`` always reads live.
STORE_MAX_LAG = timedelta(minutes=15)

#: How long a process reuses a coverage it read (seconds). Coverage grows as the sync runs,
#: so a reused one is at worst a little smaller than the current one (the store answers a
#: little less); it saves one database round trip per request on busy accounts.
COVERAGE_TTL = 2.0

_COVERAGE_SQL = """
SELECT coverage_start, coverage_end, last_success_at
FROM sync_state
WHERE account_id = %s AND resource = ANY(%s)
"""


@dataclass(frozen=True, slots=True)
class Coverage:
    """What the store holds completely for one (account, resource)."""

    start: datetime | None
    end: datetime | None
    synced_at: datetime | None

    def covers(self, start: datetime | None, end: datetime | None, *, now: datetime) -> bool:
        """Whether every row of [start, end] is in the store.

        An unbounded (``None``) start needs the whole history: the sync records a pass
        "from the beginning" as a coverage starting at the Unix epoch (docs/sync.md).
        """
        if self.start is None or self.end is None:
            return False
        lower = start if start is not None else _EPOCH
        # Nothing exists after now, so the window only needs coverage up to now -- within
        # the tolerated lag.
        upper = min(end, now) if end is not None else now
        return self.start <= lower and upper <= self.end + STORE_MAX_LAG


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=1024)
def _iso_utc(moment: datetime) -> str:
    """A coverage's as-of time as ISO 8601 in UTC: the same few for every request served
    from one coverage, so written once."""
    return moment.astimezone(UTC).isoformat()


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs a setattr call per field
class Sourced(Generic[T]):
    """An answer and where it came from."""

    data: T
    source: Source
    synced_at: datetime | None

    def cache(self) -> Cache:
        """The ``_meta._cache`` member: source and as-of time (ISO 8601, UTC)."""
        return Cache(self.source, _iso_utc(self.synced_at) if self.synced_at else None)

    def envelope(self, request: Request, following: NextParams = None) -> Envelope:
        """The route's answer: the data, the next page's URL and ``_meta._cache``."""
        return Envelope.page(self.data, next_page_url(request, following), self.cache())


async def read_coverage(
    conn: AsyncConnection, account_id: int, resource: str | tuple[str, ...]
) -> Coverage:
    """The coverage of one resource, or what several resources cover together (the
    intersection; as-of the oldest of their syncs)."""
    names = (resource,) if isinstance(resource, str) else resource
    cur = await conn.execute(_COVERAGE_SQL, (account_id, list(names)), prepare=True)
    found = await cur.fetchall()
    if len(found) < len(names) or any(None in row[:2] for row in found):
        return Coverage(None, None, None)
    synced = [row[2] for row in found if row[2] is not None]
    return Coverage(
        max(row[0] for row in found),
        min(row[1] for row in found),
        min(synced) if len(synced) == len(found) else None,
    )


class CoverageCache:
    """Coverages read in the last ``ttl`` seconds, per (account, resources); at most
    ``maxsize`` of them (the oldest go first). A plain dict with each entry's expiry: it is
    asked on every store-served request. When an entry expires under load, one read
    refreshes it and the requests that arrive meanwhile wait for that read, rather than each
    taking a connection for the same row (``read_once``)."""

    def __init__(self, ttl: float = COVERAGE_TTL, clock=time.monotonic, maxsize: int = 100_000) -> None:
        self._ttl = ttl
        self._clock = clock
        self._maxsize = maxsize
        self._held: dict[tuple[int, object], tuple[float, Coverage]] = {}
        self._reading: dict[tuple[int, object], asyncio.Task[Coverage]] = {}

    def held(self, account_id: int, resource: str | tuple[str, ...]) -> Coverage | None:
        """The coverage read within the TTL, if any (no database work)."""
        entry = self._held.get((account_id, resource))
        if entry is None or entry[0] <= self._clock():
            return None
        return entry[1]

    async def read_once(
        self, account_id: int, resource: str | tuple[str, ...], read: Callable[[], Awaitable[Coverage]]
    ) -> Coverage:
        """The held coverage, else the one ``read`` gives -- one read per key at a time."""
        coverage = self.held(account_id, resource)
        if coverage is not None:
            return coverage
        key = (account_id, resource)
        reading = self._reading.get(key)
        if reading is None:
            reading = self._reading[key] = asyncio.ensure_future(self._read(key, read))
        # Shielded: a caller that goes away does not cancel the read the others wait for.
        return await asyncio.shield(reading)

    async def _read(self, key: tuple[int, object], read: Callable[[], Awaitable[Coverage]]) -> Coverage:
        try:
            coverage = await read()
        finally:
            del self._reading[key]
        self._held.pop(key, None)  # re-inserted last: the oldest entry is the first
        while len(self._held) >= self._maxsize:
            del self._held[next(iter(self._held))]
        self._held[key] = (self._clock() + self._ttl, coverage)
        return coverage

    def clear(self) -> None:
        self._held.clear()


_COVERAGE_CACHE = CoverageCache()


@dataclass(slots=True)  # built on every store-served request: not frozen (see Sourced)
class Reader:
    """What a store-served request reads with: the pool, the upstream, whose data, how fresh.

    Built once per request by ``app.gate.readers.provide_reader`` (which declares ``fresh``), so each
    store function takes one argument for "where may I read from" instead of five.
    """

    pool: AsyncConnectionPool
    account_id: int
    #: The account's one upstream read, supplied by the gate (``app.gate.readers``): the
    #: store never reaches the relay or the credential itself.
    upstream_read: UpstreamRead
    fresh: bool = False
    # Where coverage and rows are read (RELAY_DATABASE_READ_URL, a replica); ``pool`` (the
    # primary) takes the write-backs. None: the primary for both.
    read_pool: AsyncConnectionPool | None = None
    # Looked up per request through the module, so tests can pin the clock.
    now: datetime = field(default_factory=lambda: date_params.utc_now())
    #: The route's date window (``windowed_reader``), None for routes without one.
    window: DateWindow | None = None
    #: The process's batched reads on the read pool (``app.store.batched``).
    batched: BatchedReads | None = None

    @property
    def date_window(self) -> DateWindow:
        """``window`` on a route that declares one (``windowed_reader``)."""
        if self.window is None:
            raise RuntimeError("this route declares no date window")
        return self.window

    async def live(
        self,
        path: str,
        params: Mapping[str, Any],
        *,
        path_params: Mapping[str, object] | None = None,
        expect: Shape | None = None,
    ) -> dict[str, Any]:
        """One upstream read of the account (shape-checked)."""
        return await self.upstream_read(path, params, path_params=path_params, expect=expect)

    async def read(self, fn: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """``fn`` on a connection of the read pool (autocommit: each statement on its own)."""
        async with checkout(self.read_pool or self.pool) as conn:
            return await fn(conn)

    async def rows(self, statement: PerItem, item: Any) -> list[tuple]:
        """One item's rows of a batched read of the account (``app.store.batched``), shared
        with the other requests of the process that read the same statement of the same
        account at the same time."""
        if self.batched is None:
            raise RuntimeError("no batched reads on this reader")
        return await self.batched.rows(statement, self.account_id, item)

    async def coverage(self, resource: str | tuple[str, ...]) -> Coverage:
        return await _COVERAGE_CACHE.read_once(
            self.account_id, resource, lambda: self.read(lambda conn: read_coverage(conn, self.account_id, resource))
        )

    async def answer(
        self,
        resource: str | tuple[str, ...],
        start: datetime | None,
        end: datetime | None,
        *,
        from_store: Callable[[Coverage], Awaitable[T]],
        from_upstream: Callable[[], Awaitable[T]],
        remember: Callable[[AsyncConnection, T], Awaitable[None]] | None = None,
    ) -> Sourced[T]:
        """The answer for [start, end]: from the store when every resource it reads covers
        the window (and ``fresh`` is not set), else live -- and then written back.

        ``from_store`` reads with ``read`` or ``rows`` after the coverage was read, outside a
        transaction, on the same server (the primary, or the read replica when one is
        configured). A sync commits rows and the coverage that includes them together, and
        a server (a replica replays commits in the primary's order) only ever shows more
        of them later, so the answer is never less complete than the coverage that was read.
        """
        if not self.fresh:
            coverage = await self.coverage(resource)
            if coverage.covers(start, end, now=self.now):
                return Sourced(await from_store(coverage), "store", coverage.synced_at)
        data = await from_upstream()
        fetched_at = datetime.now(UTC)
        if remember is not None:
            await self._remember(resource, remember, data)
        return Sourced(data, "upstream", fetched_at)

    async def _remember(self, resource: str | tuple[str, ...], remember, data) -> None:
        """Write a live answer into the store; a failure here must not fail the request."""
        try:
            async with self.pool.connection() as conn:
                async with conn.transaction():
                    await remember(conn, data)
        except Exception:  # noqa: BLE001 - the caller already has its answer
            logger.warning(
                "store_write_back_failed",
                extra={"account_id": self.account_id, "resource": resource},
                exc_info=True,
            )


#: How a handler asks for it: ``reader: StoreReader`` (built by the gate's wrapper, see
#: ``app.gate.readers``).
StoreReader = Reader
