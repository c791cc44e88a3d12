"""The exports' SQL: the stored coverage of a resource, and every row of a window in key
order, one batch per statement (keyset: each batch starts after the previous one's last key).

Each batch is one autocommitted statement on a connection checked out for it alone, so
between batches an export holds no connection and no transaction, however slowly its
client reads (docs/data.md, "Exports": what that means for rows the sync writes meanwhile)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import datetime

from psycopg import AsyncConnection

from app.db.declaration import key_of
from app.db.rows import one
from app.exports.columns import RESOURCES, columns_of
from app.store.source import Coverage, read_coverage

#: A connection for one batch: ``pool.connection`` (the API), or ``same_connection(conn)``.
Connect = Callable[[], AbstractAsyncContextManager[AsyncConnection]]


def same_connection(conn: AsyncConnection) -> Connect:
    """Every batch on ``conn`` (``relay export``, the scheduled export files: a connection
    of their own, which holds nobody else's work)."""
    return lambda: nullcontext(conn)


async def coverage(conn: AsyncConnection, account_id: int, resource: str) -> Coverage:
    return await read_coverage(conn, account_id, resource)


@functools.cache
def order_columns(resource: str) -> tuple[str, ...]:
    """The export's order: the coverage time, then the key (less ``account_id``, fixed)."""
    table, time_column = RESOURCES[resource]
    keys = tuple(c for c in key_of(table) if c != "account_id")
    return (time_column, *keys)


@functools.cache
def rows_sql(resource: str, *, after: bool = False) -> str:
    """One batch of the window (``%(batch)s`` rows); ``after``: past the row whose order
    values are ``%(after_0)s``, ``%(after_1)s``, ..."""
    table, time_column = RESOURCES[resource]
    order = order_columns(resource)
    selected = ", ".join(c.sql for c in columns_of(resource))
    past = ""
    if after:
        values = ", ".join(f"%(after_{i})s" for i in range(len(order)))
        past = f" AND ({', '.join(order)}) > ({values})"
    return (
        f"SELECT {selected} FROM {table.name} "
        f"WHERE account_id = %(account_id)s AND {time_column} BETWEEN %(start)s AND %(end)s{past} "
        f"ORDER BY {', '.join(order)} LIMIT %(batch)s"
    )


async def count_rows(conn: AsyncConnection, account_id: int, resource: str, start: datetime, end: datetime) -> int:
    table, time_column = RESOURCES[resource]
    cur = await conn.execute(
        f"SELECT count(*) FROM {table.name} "
        f"WHERE account_id = %s AND {time_column} BETWEEN %s AND %s",
        (account_id, start, end),
    )
    (count,) = one(await cur.fetchone())
    return count


async def stream_rows(
    connect: Connect, account_id: int, resource: str, start: datetime, end: datetime, batch: int
) -> AsyncIterator[list[tuple]]:
    """Batches of rows (tuples in ``columns_of(resource)`` order) of [start, end], each read
    on a connection of its own ``connect()``. A consumer may empty a batch's list once it has
    used it: nothing here keeps the rows."""
    names = [c.name for c in columns_of(resource)]
    positions = [names.index(name) for name in order_columns(resource)]
    params: dict[str, object] = {"account_id": account_id, "start": start, "end": end, "batch": batch}
    sql = rows_sql(resource, after=False)
    while True:
        async with connect() as conn:
            cur = await conn.execute(sql, params)
            rows = await cur.fetchall()
        if not rows:
            return
        last = rows[-1]
        params.update({f"after_{i}": last[p] for i, p in enumerate(positions)})
        sql = rows_sql(resource, after=True)
        full = len(rows) == batch
        yield rows
        if not full:
            return
