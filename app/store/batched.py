"""Store reads that concurrent requests share: one statement, one round trip, many pages.

A page read costs the API process far more in the driver (sending the statement, waiting,
converting the answer) than in the rows themselves, and several pages sent together cost
each a fraction of a lone one (measured: docs/benchmarks.md). So a
read that many requests make at once -- the same statement for different accounts and
cursors -- is written as one statement over a batch of items, and the requests of one
process that arrive while a batch is in flight go together in the next one
(``app.db.coalesce.Coalescer``). An idle process sends a lone request at once; when half a
batch waits behind a running statement, another statement goes beside it.

A batched statement takes its items as one JSON array (``%(batch)s``), reads each with
``jsonb_array_elements(...) WITH ORDINALITY AS r(item, n)`` and a ``LATERAL`` subquery (so
each item is one index range scan, as alone), and answers the item's ordinal ``n`` as its
first column, its rows in order after that.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec
import psycopg
from psycopg_pool import AsyncConnectionPool

from app.db.coalesce import Coalescer
from app.db.pool import checkout

_encode = msgspec.json.Encoder().encode

#: The clause a batched statement reads its items from.
ITEMS = "jsonb_array_elements(%(batch)s::jsonb) WITH ORDINALITY AS r(item, n)"


def _per_item_failure(exc: Exception) -> bool:
    """A statement error (not a lost connection) may be one item's: run the items alone."""
    return isinstance(exc, psycopg.Error) and not isinstance(exc, psycopg.OperationalError)


class BatchedReads:
    """The process's batched reads on one pool: a ``Coalescer`` per statement."""

    def __init__(self, pool: AsyncConnectionPool, *, max_batch: int = 64, in_flight: int = 4,
                 split_at: int = 32) -> None:
        self._pool = pool
        self._max_batch = max_batch
        # A second statement only once half a batch waits: on a small machine one statement
        # keeps up and batches stay large; where the server is slower than this process
        # (many cores), up to ``in_flight`` run side by side (docs/benchmarks.md, 16 cores).
        self._in_flight = min(in_flight, max(1, pool.max_size // 2))
        self._split_at = split_at
        self._batches: dict[str, Coalescer[Any, list[tuple]]] = {}
        #: Statements run and items read by this process (their ratio: the batch size).
        self.statements = 0
        self.items = 0

    async def rows(self, statement: str, item: Any) -> list[tuple]:
        """The rows ``statement`` answers for ``item`` (without the ordinal column)."""
        batches = self._batches.get(statement)
        if batches is None:
            batches = self._batches[statement] = Coalescer(
                partial(self._run, statement), max_batch=self._max_batch, in_flight=self._in_flight,
                split_at=self._split_at, retry_alone=_per_item_failure,
            )
        return await batches(item)

    async def _run(self, statement: str, items: list[Any]) -> list[list[tuple]]:
        async with checkout(self._pool) as conn:
            cursor = await conn.execute(statement, {"batch": _encode(items).decode()}, prepare=True)
            found = await cursor.fetchall()
        self.statements += 1
        self.items += len(items)
        answers: list[list[tuple]] = [[] for _ in items]
        for row in found:
            answers[row[0] - 1].append(row[1:])
        return answers

    async def close(self) -> None:
        for batches in self._batches.values():
            await batches.close()
