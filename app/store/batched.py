"""Store reads that concurrent requests share: one statement, one round trip, many pages.

A page read costs the API process far more in the driver (sending the statement, waiting,
converting the answer) than in the rows themselves, and several pages sent together cost
each a fraction of a lone one (measured: docs/benchmarks.md). So a
read that many requests make at once -- the same statement for different accounts and
cursors -- is written as one statement over a batch of items, and the requests of one
process that arrive while a batch is in flight go together in the next one
(``app.db.coalesce.Coalescer``). An idle process sends a lone request at once; when half a
batch waits behind a running statement, another statement goes beside it.

A batched statement reads one account's rows (``%(account)s``): the requests of one account
share a statement, those of different accounts go in statements of their own. On Citus
(docs/scaling.md) that is a statement of one shard, routed there whole; a statement over
several accounts cannot be (a ``LATERAL`` subquery with ``LIMIT`` over a table function is
not pushed down). It takes its items as one JSON array (``%(batch)s``), reads each with
``jsonb_array_elements(...) WITH ORDINALITY AS r(item, n)`` and a ``LATERAL`` subquery (so
each item is one index range scan, as alone), and answers the item's ordinal ``n`` as its
first column, its rows in order after that.

On Citus a batch of one item goes as the same read written for one item (``PerItem.one``):
a plain one-table statement, which Citus plans by its fast path (on the worker 0.30 ms
against the batched form's 0.44, docs/scaling.md). On one PostgreSQL the batched form stays:
there the one-item statement is planned anew at every run (its custom plan looks cheaper
than the generic one), 0.17 ms against 0.14. Both forms are written from one description
(``PerItem``), so they cannot drift apart.

On Citus, once the account's worker is known (``app.db.shard_reads``), the batched form reads
the account's shard on that worker as a plain table (``shard_statement``): no Citus planning
at all, as on one PostgreSQL. Beside every item it answers whether the worker still holds
the shard, read in the statement's own snapshot; where it does not (a shard move) or the
shard is gone, the batch is read again through the coordinator and the placement re-learned.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import msgspec
import psycopg
from psycopg import errors
from psycopg_pool import AsyncConnectionPool

from app.db.coalesce import Coalescer
from app.db.pool import WarmPool
from app.db.prepared import fetch_all
from app.db.shard_reads import ReadPools, Shard

_encode = msgspec.json.Encoder().encode

#: The clause a batched statement reads its items from.
ITEMS = "jsonb_array_elements(%(batch)s::jsonb) WITH ORDINALITY AS r(item, n)"


@dataclass(frozen=True, slots=True)
class PerItem:
    """A read of up to ``limit`` rows of one account's ``table`` per item, in ``order``.

    ``where`` names the account as ``%(account)s`` and the item as ``{item}`` (a ``jsonb``
    value); ``columns`` are the answer's columns, computed from the ``reads`` columns of the
    table (``order`` needs only those). ``many`` is the batched statement, ``one`` the
    same read of a single item (``%(item)s``).
    """

    table: str
    reads: str
    columns: str
    where: str
    order: str
    limit: int
    #: The two statements, written once (a store page asks for one of them).
    many: str = field(init=False, compare=False)
    one: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        many = (f"SELECT r.n, {self.columns} FROM {ITEMS} CROSS JOIN LATERAL ("
                f"{self.item_read(self.reads, self.table, 'r.item')}) t ORDER BY r.n, {self.order}")
        one = self.item_read(f"1, {self.columns}", self.table, "%(item)s::jsonb")
        object.__setattr__(self, "many", many)
        object.__setattr__(self, "one", one)

    def item_read(self, select: str, relation: str, item: str) -> str:
        """The read of one item (``item``: its SQL) in ``relation``: every form is written from it."""
        return (f"SELECT {select} FROM {relation} WHERE {self.where.format(item=item)}"
                f" ORDER BY {self.order} LIMIT {self.limit}")


#: Whether the worker the statement runs on still holds shard ``%(shard)s`` (in its group).
_HELD = ("SELECT EXISTS (SELECT FROM pg_dist_placement"
         " WHERE shardid = %(shard)s::bigint AND groupid = %(group)s::int) AS held")


@functools.lru_cache(maxsize=512)
def shard_statement(statement: PerItem, relation: str) -> str:
    """``statement.many`` on ``relation`` (the account's shard of its table, on the worker
    that holds it), each item's rows led by two columns: whether that worker still holds
    shard ``%(shard)s`` (in group ``%(group)s``) and whether the row is one (an item without
    rows answers one row of nulls; with the shard moved, every item answers that row)."""
    read = statement.item_read(f"true AS found, {statement.reads}", relation, "r.item")
    return (f"SELECT r.n, g.held, t.found, {statement.columns} FROM {ITEMS} CROSS JOIN ({_HELD}) g"
            f" LEFT JOIN LATERAL ({read}) t ON g.held ORDER BY r.n, {statement.order}")


def _per_item_failure(exc: Exception) -> bool:
    """A statement error (not a lost connection) may be one item's: run the items alone."""
    return isinstance(exc, psycopg.Error) and not isinstance(exc, psycopg.OperationalError)


class BatchedReads:
    """The process's batched reads on one pool: a ``Coalescer`` per statement and account."""

    def __init__(self, pool: AsyncConnectionPool, *, max_batch: int = 16, in_flight: int = 4,
                 split_at: int = 8, keep: int = 1024,
                 route: ReadPools | None = None) -> None:
        self._pool = pool
        #: The pool of an account's statement (``app.db.shard_reads``: its Citus worker);
        #: None: ``pool`` for every account. Every pool has ``pool``'s bounds.
        self._route = route
        # Batches of at most 16 pages: at 128 connections a statement of up to 64 pages took
        # 27 ms at its p99 (90 at most) and held every page in it that long, one of 16 pages
        # 11 ms (14); the store page's p99 went from 51 to 28 ms, its req/s no lower, and at
        # 32 connections 13% higher (docs/benchmarks.md, "The store page's tail at 1 and 128
        # connections").
        self._max_batch = max_batch
        # A second statement only once half a batch waits: below that, one statement keeps up;
        # where the server is slower than this process (many cores), up to ``in_flight`` run
        # side by side (docs/benchmarks.md, 16 cores).
        self._in_flight = min(in_flight, max(1, pool.max_size // 2))
        self._split_at = split_at
        #: Past this many coalescers the idle ones are dropped (one per account read lately).
        self._keep = keep
        self._batches: dict[tuple[PerItem, int], Coalescer[Any, list[tuple]]] = {}
        #: Each pool read from, with the connection it keeps between reads.
        self._warm: dict[AsyncConnectionPool, WarmPool] = {}
        #: Statements run and items read by this process (their ratio: the batch size).
        self.statements = 0
        self.items = 0

    @property
    def coalescers(self) -> int:
        """How many (statement, account) coalescers the process holds now."""
        return len(self._batches)

    async def rows(self, statement: PerItem, account_id: int, item: Any) -> list[tuple]:
        """The rows ``statement`` answers for ``item`` of the account (without the ordinal column)."""
        batches = self._batches.get((statement, account_id))
        if batches is None:
            batches = self._open(statement, account_id)
        return await batches(item)

    def _open(self, statement: PerItem, account_id: int) -> Coalescer[Any, list[tuple]]:
        if len(self._batches) >= self._keep:
            self._batches = {key: batches for key, batches in self._batches.items() if not batches.idle}
        batches = self._batches[statement, account_id] = Coalescer(
            partial(self._run, statement, account_id), max_batch=self._max_batch, in_flight=self._in_flight,
            split_at=self._split_at, retry_alone=_per_item_failure,
        )
        return batches

    async def _run(self, statement: PerItem, account_id: int, items: list[Any]) -> list[list[tuple]]:
        route = self._route
        answers = None
        shard = None if route is None else route.shard(account_id, statement.table)
        if route is not None and shard is not None:
            answers = await self._read_shard(statement, shard, account_id, items)
            if answers is None:
                route.forget(account_id)
        if answers is None:
            answers = await self._read(statement, account_id, items)
        self.statements += 1
        self.items += len(items)
        return answers

    async def _read(self, statement: PerItem, account_id: int, items: list[Any]) -> list[list[tuple]]:
        """The items' rows read by the table's name: on the account's pool (``route``)."""
        route = self._route
        if len(items) == 1 and route is not None and route.distributed:
            text, params = statement.one, {"account": account_id, "item": _encode(items[0]).decode()}
        else:
            text, params = statement.many, {"account": account_id, "batch": _encode(items).decode()}
        pool = self._pool if route is None else route.for_account(account_id)
        found = await self._fetch(pool, text, params)
        answers: list[list[tuple]] = [[] for _ in items]
        for row in found:
            answers[row[0] - 1].append(row[1:])
        return answers

    async def _read_shard(self, statement: PerItem, shard: Shard, account_id: int,
                          items: list[Any]) -> list[list[tuple]] | None:
        """The items' rows read on the account's shard; None where the worker no longer
        holds it."""
        params = {"account": account_id, "batch": _encode(items).decode(), "shard": shard.shard_id,
                  "group": shard.group}
        try:
            found = await self._fetch(shard.pool, shard_statement(statement, shard.relation), params)
        except errors.UndefinedTable:  # dropped after it moved
            return None
        answers: list[list[tuple]] = [[] for _ in items]
        for row in found:
            if not row[1]:
                return None
            if row[2]:
                answers[row[0] - 1].append(row[3:])
        return answers

    async def _fetch(self, pool: AsyncConnectionPool, text: str, params: dict[str, Any]) -> list[tuple]:
        """``text``'s rows on a connection of ``pool``, kept for the next read (``WarmPool``)."""
        warm = self._warm.get(pool)
        if warm is None:
            warm = self._warm[pool] = WarmPool(pool)
        conn = await warm.get()
        try:
            return await fetch_all(conn, text, params)
        finally:
            await warm.put(conn)

    async def close(self) -> None:
        for batches in self._batches.values():
            await batches.close()
        for warm in self._warm.values():
            await warm.close()
