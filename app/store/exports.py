"""The exports' SQL: the stored coverage of a resource, and every row of a window, streamed
through a server-side cursor in key order (one batch in memory at a time)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

from psycopg import AsyncConnection

from app.exports.columns import RESOURCES, columns_of
from app.store.source import Coverage, read_coverage


async def coverage(conn: AsyncConnection, account_id: int, resource: str) -> Coverage:
    return await read_coverage(conn, account_id, resource)


def rows_sql(resource: str) -> str:
    model, time_column = RESOURCES[resource]
    keys = ", ".join(c.name for c in model.__table__.primary_key.columns)
    selected = ", ".join(c.sql for c in columns_of(resource))
    return (
        f"SELECT {selected} FROM {model.__tablename__} "
        f"WHERE account_id = %(account_id)s AND {time_column} BETWEEN %(start)s AND %(end)s "
        f"ORDER BY {time_column}, {keys}"
    )


async def count_rows(conn: AsyncConnection, account_id: int, resource: str, start: datetime, end: datetime) -> int:
    model, time_column = RESOURCES[resource]
    cur = await conn.execute(
        f"SELECT count(*) FROM {model.__tablename__} "
        f"WHERE account_id = %s AND {time_column} BETWEEN %s AND %s",
        (account_id, start, end),
    )
    (count,) = await cur.fetchone()
    return count


async def stream_rows(
    conn: AsyncConnection, account_id: int, resource: str, start: datetime, end: datetime, batch: int
) -> AsyncIterator[list[tuple]]:
    """Batches of rows (tuples in ``columns_of(resource)`` order) of [start, end]."""
    async with conn.transaction():
        async with conn.cursor(name=f"export_{resource}") as cur:
            cur.itersize = batch
            await cur.execute(rows_sql(resource), {"account_id": account_id, "start": start, "end": end})
            while rows := await cur.fetchmany(batch):
                yield rows
