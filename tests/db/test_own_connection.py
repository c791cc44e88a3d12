"""``OwnConnection``: a background writer's one connection with its pool's settings."""

from __future__ import annotations

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from app.db.pool import OwnConnection
from tests.fixtures.net import wait_for

NAME = "creator-relay-own-test"


def opened(db) -> int:
    # This session's database only: parallel test processes share the server.
    (count,) = db.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
                          "AND datname = current_database()", (NAME,)).fetchone()
    return count


@pytest.fixture
def pool(database_url):
    return AsyncConnectionPool(database_url, open=False, timeout=5)  # never opened: its settings only


async def test_a_connection_runs_its_setup_once_and_is_kept(pool, db):
    own = OwnConnection(pool, name=NAME, setup=("SET synchronous_commit = off",))
    try:
        conn = await own.get()
        assert conn.autocommit and await own.get() is conn
        assert await (await conn.execute("SHOW synchronous_commit")).fetchone() == ("off",)
        assert opened(db) == 1
    finally:
        await own.close()
    # The server's backend leaves pg_stat_activity a moment after the client closed.
    wait_for(lambda: opened(db) == 0, 5, "the closed connection's backend to end", every=0.02)


async def test_a_failed_setup_leaves_no_connection_open(pool, db):
    own = OwnConnection(pool, name=NAME, setup=("SET no_such_setting_anywhere = 1",))
    with pytest.raises(psycopg.Error) as failed:
        await own.get()
    # Closed, not left to the garbage collector (the error's traceback, kept here as a
    # logged error keeps it, still holds the frame that opened it).
    assert failed.value is not None and not own.usable
    wait_for(lambda: opened(db) == 0, 5, "the closed connection's backend to end", every=0.02)
