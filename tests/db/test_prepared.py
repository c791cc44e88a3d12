"""``app.db.prepared.fetch_all``: a statement's rows through libpq, as a psycopg cursor gives them."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg import pq
from psycopg_pool import AsyncConnectionPool

from app.db.prepared import fetch_all, positional

TYPED = ("SELECT %(n)s::bigint AS n, %(n)s::bigint * 2 AS twice, %(doc)s::jsonb -> 'a' AS a,"
         " (%(doc)s::jsonb ->> 'at')::timestamptz AS at, (%(doc)s::jsonb ->> 'price')::numeric AS price,"
         " NULL::text AS nothing, '100%%' AS percent, g AS row FROM generate_series(1, 3) g")
PARAMS = {"n": 7, "doc": '{"a": [1, "x"], "at": "2026-11-26T10:00:00+00:00", "price": "12.50"}'}


def test_placeholders_become_numbered_parameters_once_per_name():
    text, names = positional("SELECT %(a)s, %(b)s, %(a)s, '5%%'")
    assert (text, names) == (b"SELECT $1, $2, $1, '5%'", ("a", "b"))


@pytest.fixture
async def conn(database_url):
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        yield conn


async def test_rows_are_typed_as_a_cursor_gives_them(conn):
    expected = await (await conn.execute(TYPED, PARAMS)).fetchall()
    assert await fetch_all(conn, TYPED, PARAMS) == expected
    assert await fetch_all(conn, TYPED, PARAMS) == expected  # the second run uses the prepared one
    assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE


async def test_a_statement_is_prepared_once_per_connection(conn):
    await fetch_all(conn, TYPED, PARAMS)
    await fetch_all(conn, TYPED, {**PARAMS, "n": 8})
    prepared = await (await conn.execute(
        "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'relay_%%'")).fetchone()
    assert prepared == (1,)


async def test_a_statement_deallocated_behind_its_back_is_prepared_again(conn):
    await fetch_all(conn, TYPED, PARAMS)
    await conn.execute("DEALLOCATE ALL")
    rows = await fetch_all(conn, TYPED, PARAMS)
    assert [row[0] for row in rows] == [7, 7, 7]


async def test_a_failed_statement_raises_its_sqlstate_class_and_leaves_the_connection_idle(conn):
    with pytest.raises(psycopg.errors.DivisionByZero):
        await fetch_all(conn, "SELECT 1 / %(n)s::int", {"n": 0})
    with pytest.raises(psycopg.errors.UndefinedTable):
        await fetch_all(conn, "SELECT * FROM no_such_table_here WHERE id = %(n)s::int", {"n": 1})
    assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE
    assert await fetch_all(conn, "SELECT %(n)s::int + 1", {"n": 1}) == [(2,)]


async def test_a_parameter_of_another_type_is_refused_before_anything_is_sent(conn):
    with pytest.raises(TypeError, match="str and int"):
        await fetch_all(conn, "SELECT %(n)s::numeric", {"n": 1.5})
    with pytest.raises(TypeError, match="bool"):
        await fetch_all(conn, "SELECT %(n)s::int", {"n": True})
    assert await fetch_all(conn, "SELECT %(n)s::int", {"n": 3}) == [(3,)]


async def test_a_lost_connection_raises_operational_error(conn, db):
    (pid,) = await (await conn.execute("SELECT pg_backend_pid()")).fetchone()
    db.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(psycopg.OperationalError):
        for _ in range(50):  # the goodbye may take a moment to arrive
            await fetch_all(conn, "SELECT %(n)s::int", {"n": 1})
            await asyncio.sleep(0.02)


async def test_a_connection_left_busy_by_a_cancelled_read_is_not_handed_out_again(database_url):
    async with AsyncConnectionPool(database_url, min_size=1, max_size=1, kwargs={"autocommit": True},
                                   open=False) as pool:
        conn = await pool.getconn()
        read = asyncio.create_task(fetch_all(conn, "SELECT pg_sleep(%(s)s::float8)", {"s": "5"}))
        await asyncio.sleep(0.2)
        read.cancel()
        with pytest.raises(asyncio.CancelledError):
            await read
        assert conn.pgconn.transaction_status == pq.TransactionStatus.ACTIVE
        await pool.putconn(conn)
        async with pool.connection(timeout=10) as fresh:
            assert fresh is not conn
            assert await fetch_all(fresh, "SELECT %(n)s::int", {"n": 4}) == [(4,)]
