"""The yardstick: what a user would write instead of Creator Relay, in one file.

One Litestar route, one psycopg keyset query (async pool) over the same ``earnings``
table, returning the stored payloads; no gate, no coverage check. It is deliberately not
part of our app: ``make bench`` runs it under the fastest stock server set-up
(uvicorn with uvloop and httptools, ``--workers N``)::

    BENCH_MINIMAL_DATABASE_URL=postgresql://... uvicorn bench.minimal_app:app --loop uvloop --http httptools
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import msgspec
from litestar import Litestar, get
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

PAGE_SIZE = 10

PAGE_SQL = """
SELECT extract(epoch FROM created_at)::bigint AS marker, payload::text AS payload
FROM earnings
WHERE account_id = %s AND created_at < to_timestamp(%s)
ORDER BY created_at DESC, id DESC
LIMIT %s
"""

#: Connections each process of the minimal app may open.
POOL_MAX = 16

pool = AsyncConnectionPool(os.environ.get("BENCH_MINIMAL_DATABASE_URL", ""), min_size=4, max_size=POOL_MAX,
                           open=False, kwargs={"autocommit": True})


@asynccontextmanager
async def lifespan(_: Litestar) -> AsyncIterator[None]:
    await pool.open(wait=True)
    try:
        yield
    finally:
        await pool.close()


async def fetch_page(conn: AsyncConnection, account_id: int, marker: int) -> dict:
    """The page of ``PAGE_SIZE`` rows before ``marker`` (unix seconds), newest first."""
    cursor = await conn.execute(PAGE_SQL, (account_id, marker, PAGE_SIZE + 1), prepare=True)
    rows = await cursor.fetchall()
    page = rows[:PAGE_SIZE]
    return {"list": [msgspec.Raw(payload) for _, payload in page],
            "hasMore": len(rows) > PAGE_SIZE, "nextMarker": page[-1][0] if page else None}


@get("/earnings/{account_id:int}")
async def earnings(account_id: int, marker: int) -> dict:
    async with pool.connection() as conn:
        return {"data": await fetch_page(conn, account_id, marker)}


@get("/health")
async def health() -> dict:
    return {"ok": True}


app = Litestar([earnings, health], lifespan=[lifespan])
