"""Store reads straight from the worker that holds the account (``app.db.shard_reads``): on
a Citus coordinator each account's reads go to its worker once its placement is learned,
and answer there what they answer through the coordinator -- the batched pages read from
the account's shard itself, and never stale after the shard moved; on plain PostgreSQL
every read stays on the one pool."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

from app.db.migrate import migrate
from app.db.pool import create_pool
from app.db.shard_reads import ReadPools
from app.settings import Settings
from app.store.batched import BatchedReads
from app.store.earnings_feed import FeedQuery, page_item, pages_statement
from tests.db.test_citus_reads import EARNING_ACCOUNTS, T0, _feed_items, fill

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster_url(citus_empty_database) -> Iterator[str]:
    with citus_empty_database("relay_citus_direct") as url:
        migrate(url)
        with psycopg.connect(url, autocommit=True) as conn:
            fill(conn)
        yield url


@asynccontextmanager
async def _read_pools(url: str, *, direct: bool = True) -> AsyncIterator[tuple[AsyncConnectionPool, ReadPools]]:
    """The API's read pools on ``url``, as ``create_app`` makes them (``direct``:
    ``RELAY_CITUS_DIRECT_READS``)."""
    settings = Settings(database_url=url)
    pool = create_pool(url, settings, name="api")
    await pool.open()
    pools = ReadPools(pool, settings, coordinator=pool if direct else None)
    try:
        yield pool, pools
    finally:
        await pools.close()
        await pool.close()


def _placement_port(url: str, account: int) -> int:
    with psycopg.connect(url) as conn:
        (port,) = conn.execute(
            "SELECT nodeport FROM citus_shards WHERE table_name = 'sync_state'::regclass"
            " AND shardid = get_shard_id_for_distribution_column('sync_state', %s)", (account,)).fetchone()
    return port


async def _server_port(pool: AsyncConnectionPool) -> int:
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT inet_server_port()")
        (port,) = await cur.fetchone()
    return port


async def _pages(reads: BatchedReads, items) -> list:
    statement = pages_statement(None, None)
    return list(await asyncio.gather(*(reads.rows(statement, account, item) for account, item in items)))


async def test_an_accounts_reads_go_to_the_worker_holding_it_and_answer_the_same(cluster_url):
    items = _feed_items(12)
    async with _read_pools(cluster_url) as (coordinator, pools):
        through_coordinator = await _pages(BatchedReads(coordinator), items)
        # Not learned yet: through the coordinator, the placements learned meanwhile (the
        # first question also learns that this is a Citus coordinator: the accounts asked
        # while it runs are learned on their next read).
        assert {pools.for_account(account) for account in EARNING_ACCOUNTS} == {coordinator}
        await pools.learned()
        for account in EARNING_ACCOUNTS:
            pools.for_account(account)
        await pools.learned()
        ports = {}
        for account in EARNING_ACCOUNTS:
            pool = pools.for_account(account)
            assert pool is not coordinator
            ports[account] = await _server_port(pool)
            assert ports[account] == int(conninfo_to_dict(pool.conninfo)["port"]) == _placement_port(cluster_url, account)
        assert len(set(ports.values())) == pools.node_pools == 2  # the accounts are on both workers
        assert pools.distributed
        for account in EARNING_ACCOUNTS:  # the batched pages read the account's shard on its worker
            shard = pools.shard(account, "earnings")
            assert shard is not None and shard.pool is pools.for_account(account)
            assert await _count_on(shard.pool, shard.relation, account) == 400
        direct = BatchedReads(coordinator, route=pools)
        try:
            assert await _pages(direct, items) == through_coordinator
            # Each alone: on the cluster a lone page goes as the one-item statement.
            statement = pages_statement(None, None)
            assert [await direct.rows(statement, account, item) for account, item in items] == through_coordinator
            assert all(len(rows) == 11 for rows in through_coordinator)
        finally:
            await direct.close()


async def _count_on(pool: AsyncConnectionPool, relation: str, account: int) -> int:
    async with pool.connection() as conn:
        cur = await conn.execute(f"SELECT count(*) FROM {relation} WHERE account_id = %s", (account,))
        (n,) = await cur.fetchone()
    return n


def _move_and_add_a_row(url: str, account: int, to_port: int, hours: int) -> str:
    """Moves the account's shards to the worker on ``to_port`` (the old shards dropped at
    once), then syncs one new, newest earning of the account (its id)."""
    new_id = f"moved-{hours}"
    with psycopg.connect(url, autocommit=True) as conn:
        (shard_id, port) = conn.execute(
            "SELECT shardid, nodeport FROM citus_shards WHERE table_name = 'earnings'::regclass"
            " AND shardid = get_shard_id_for_distribution_column('earnings', %s)", (account,)).fetchone()
        conn.execute("SELECT citus_move_shard_placement(%s, '127.0.0.1', %s, '127.0.0.1', %s,"
                     " shard_transfer_mode := 'block_writes')", (shard_id, port, to_port))
        conn.execute("INSERT INTO earnings (account_id, id, type, created_at, amount, net, fee, payload)"
                     " VALUES (%s, %s, 'post', %s, 2, 1, 1, '{}')", (account, new_id, T0 + timedelta(hours=hours)))
    return new_id


async def test_a_moved_shard_is_never_read_stale_and_its_placement_is_learned_again(cluster_url):
    """The worker a shard left answers it no more (it knows, in the same snapshot, that it no
    longer holds the shard; or the shard is gone): the page is read through the coordinator,
    with the row written after the move, and the new placement is learned."""
    account = EARNING_ACCOUNTS[2]
    now = T0 + timedelta(days=30)
    newest = page_item(FeedQuery(T0, now), now)
    statement = pages_statement(None, None)
    ports = sorted({_placement_port(cluster_url, a) for a in EARNING_ACCOUNTS})
    async with _read_pools(cluster_url) as (coordinator, pools):
        direct = BatchedReads(coordinator, route=pools)
        try:
            for hours, cleanup in ((300, False), (301, True)):
                pools.for_account(account)
                await pools.learned()
                before = pools.shard(account, "earnings")
                assert before is not None
                here = _placement_port(cluster_url, account)
                there = next(p for p in ports if p != here)
                with psycopg.connect(cluster_url, autocommit=True) as conn:
                    conn.execute("CALL citus_cleanup_orphaned_resources()")
                new_id = _move_and_add_a_row(cluster_url, account, there, hours)
                if cleanup:  # the shard it left is gone, not only given up
                    with psycopg.connect(cluster_url, autocommit=True) as conn:
                        conn.execute("CALL citus_cleanup_orphaned_resources()")
                rows = await direct.rows(statement, account, newest)
                assert rows[0][1] == new_id and len(rows) == 11
                await pools.learned()  # forgotten, and being learned again since
                after = pools.shard(account, "earnings")
                assert after is not None and after.pool is not before.pool
                assert int(conninfo_to_dict(after.pool.conninfo)["port"]) == there
                assert (await direct.rows(statement, account, newest))[0][1] == new_id
        finally:
            await direct.close()


async def test_on_plain_postgresql_every_read_stays_on_the_one_pool_and_nothing_is_asked_again(postgres_database_url):
    async with _read_pools(postgres_database_url) as (pool, pools):
        assert pools.for_account(1) is pool
        await pools.learned()
        assert pools.for_account(2) is pool and pools.for_account(1) is pool
        await pools.learned()
        assert pools.node_pools == 0 and not pools.distributed
        assert pools.learning == 0  # plain PostgreSQL is known for good: no more questions


async def test_with_direct_reads_off_the_coordinator_is_never_asked(cluster_url):
    async with _read_pools(cluster_url, direct=False) as (pool, pools):
        assert pools.for_account(EARNING_ACCOUNTS[0]) is pool
        assert pools.learning == 0
        assert pools.for_account(EARNING_ACCOUNTS[0]) is pool and pools.node_pools == 0
