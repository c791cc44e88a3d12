"""``WarmPool``: the connection kept between back-to-back reads, and given back when idle."""

from __future__ import annotations

import asyncio

import pytest
from psycopg_pool import AsyncConnectionPool

from app.db.pool import WarmPool
from app.db.prepared import fetch_all


@pytest.fixture
async def pool(database_url):
    async with AsyncConnectionPool(database_url, min_size=1, max_size=2, kwargs={"autocommit": True},
                                   open=False, timeout=5) as pool:
        yield pool


def checkouts(pool: AsyncConnectionPool) -> int:
    return pool.get_stats().get("requests_num", 0)


async def test_back_to_back_reads_share_one_checkout(pool):
    warm = WarmPool(pool, hold=5)
    first = await warm.get()
    await warm.put(first)
    assert warm.holding
    again = await warm.get()
    assert again is first and checkouts(pool) == 1
    await warm.put(again)
    await warm.close()
    assert not warm.holding
    both = [await pool.getconn(timeout=2), await pool.getconn(timeout=2)]  # the pool's max: none held
    for conn in both:
        await pool.putconn(conn)


async def test_a_kept_connection_goes_back_to_the_pool_once_idle(pool):
    warm = WarmPool(pool, hold=0.05)
    conn = await warm.get()
    await warm.put(conn)
    for _ in range(100):
        if not warm.holding:
            break
        await asyncio.sleep(0.01)
    assert not warm.holding
    async with pool.connection(timeout=1) as pooled:  # the pool has it again
        assert not pooled.closed
    await warm.close()


async def test_a_reused_connection_postpones_its_return(pool):
    warm = WarmPool(pool, hold=0.2)
    conn = await warm.get()
    await warm.put(conn)
    for _ in range(4):  # used every 0.1 s: never idle for a whole hold
        await asyncio.sleep(0.1)
        conn = await warm.get()
        await warm.put(conn)
        assert warm.holding
    await warm.close()


async def test_however_busy_a_connection_goes_back_to_the_pool_after_its_lease(pool):
    warm = WarmPool(pool, hold=5, lease=0.2)
    conn = await warm.get()
    await warm.put(conn)
    await asyncio.sleep(0.3)  # used again and again, but out of the pool longer than its lease
    again = await warm.get()
    assert again is conn
    await warm.put(again)
    assert not warm.holding
    fresh = await warm.get()  # from the pool again
    assert checkouts(pool) == 2
    await warm.put(fresh)
    await warm.close()


async def test_a_connection_in_a_transaction_is_not_kept(pool):
    warm = WarmPool(pool, hold=5)
    conn = await warm.get()
    await conn.execute("BEGIN")
    await warm.put(conn)
    assert not warm.holding
    await warm.close()


async def test_a_kept_connection_whose_backend_ended_is_not_handed_out(pool, db):
    warm = WarmPool(pool, hold=5)
    conn = await warm.get()
    (pid,) = await (await conn.execute("SELECT pg_backend_pid()")).fetchone()
    await warm.put(conn)
    db.execute("SELECT pg_terminate_backend(%s)", (pid,))
    await asyncio.sleep(0.2)  # the server's goodbye reaches the socket
    fresh = await warm.get()
    assert fresh is not conn
    assert await (await fresh.execute("SELECT 1")).fetchone() == (1,)
    await warm.put(fresh)
    await warm.close()


async def test_after_close_nothing_is_kept(pool):
    warm = WarmPool(pool, hold=5)
    await warm.close()
    conn = await warm.get()
    await warm.put(conn)
    assert not warm.holding


READ = "SELECT %(n)s::int"


async def read_through(warm: WarmPool, n: int) -> tuple[object, list[tuple]]:
    conn = await warm.get()
    try:
        return conn, await fetch_all(conn, READ, {"n": n})
    finally:
        await warm.put(conn)


async def test_reads_on_a_kept_connection_wait_through_one_reader_until_it_goes_back(pool, monkeypatch):
    await pool.wait()  # the pool's own connecting is done: what follows is the reads'
    loop = asyncio.get_running_loop()
    added: list[int] = []
    removed: list[int] = []
    add, remove = loop.add_reader, loop.remove_reader
    monkeypatch.setattr(loop, "add_reader", lambda fd, *a: (added.append(fd), add(fd, *a))[1])
    monkeypatch.setattr(loop, "remove_reader", lambda fd: (removed.append(fd), remove(fd))[1])
    warm = WarmPool(pool, hold=5)

    answers = [await read_through(warm, n) for n in range(5)]

    conn = answers[0][0]
    fd = conn.pgconn.socket
    assert [rows for _, rows in answers] == [[(n,)] for n in range(5)]
    assert all(c is conn for c, _ in answers)
    assert added == [fd] and removed == []  # one reader serves the five reads
    await warm.close()
    assert removed == [fd]  # gone before the pool has the connection again
    assert await (await conn.execute("SELECT 1")).fetchone() == (1,)  # psycopg's own waits work


async def test_a_watched_connection_whose_backend_ended_is_not_handed_out(pool, db):
    warm = WarmPool(pool, hold=5)
    conn, _ = await read_through(warm, 1)
    (pid,) = db.execute("SELECT pid FROM pg_stat_activity WHERE query = %s ORDER BY backend_start DESC LIMIT 1",
                        ("SELECT $1::int",)).fetchone()
    db.execute("SELECT pg_terminate_backend(%s)", (pid,))
    await asyncio.sleep(0.2)  # the server's goodbye reaches the socket; the reader hears it

    fresh, rows = await read_through(warm, 2)

    assert fresh is not conn and rows == [(2,)]
    await warm.close()


async def test_a_read_cancelled_on_a_watched_connection_leaves_no_reader_and_no_busy_connection(pool):
    warm = WarmPool(pool, hold=5)
    conn, _ = await read_through(warm, 1)
    again = await warm.get()
    assert again is conn
    read = asyncio.create_task(fetch_all(again, "SELECT pg_sleep(%(s)s::float8)", {"s": "5"}))
    await asyncio.sleep(0.2)
    read.cancel()
    with pytest.raises(asyncio.CancelledError):
        await read
    await warm.put(again)  # busy: back to the pool, which discards it

    assert not warm.holding
    fresh, rows = await read_through(warm, 3)
    assert fresh is not conn and rows == [(3,)]
    await warm.close()
