"""The sync's own vacuum of the page staging tables (``sync/staging_vacuum.py``): once the
process has staged its share of rows, the dead ones are reclaimed and the next pages reuse
their space instead of growing the table."""

from __future__ import annotations

from psycopg import AsyncConnection

from sync.staging_vacuum import StagingVacuum

PAD = "x" * 400


async def _page(conn: AsyncConnection, vacuum: StagingVacuum, rows: int) -> None:
    """What a page write leaves in ``sync_page_rows``: its rows staged and deleted in one
    transaction (dead once it commits), then counted."""
    async with conn.transaction():
        await conn.execute("INSERT INTO sync_page_rows (account_id, batch, p) SELECT 1, 7, jsonb_build_object('pad', %s::text)"
                           " FROM generate_series(1, %s)", (PAD, rows))
        await conn.execute("DELETE FROM sync_page_rows WHERE account_id = 1 AND batch = 7")
    await vacuum.after_page(conn, rows)


async def _size(conn: AsyncConnection) -> int:
    cur = await conn.execute("SELECT pg_relation_size('sync_page_rows')")
    (size,) = await cur.fetchone()
    return size


async def test_staged_rows_are_reclaimed_so_the_table_stays_near_one_share(database_url):
    async with await AsyncConnection.connect(database_url, autocommit=True) as conn:
        # Without the vacuum (autovacuum does not come by within a test): 32,000 rows' pages.
        for _ in range(8):
            await _page(conn, StagingVacuum(every_rows=0), 4_000)
        unvacuumed = await _size(conn)
        assert unvacuumed > 32_000 * len(PAD)

        vacuum = StagingVacuum(every_rows=8_000)
        await _page(conn, vacuum, 4_000)
        assert vacuum.vacuums == 0  # not yet its share
        await _page(conn, vacuum, 4_000)
        assert vacuum.vacuums == 1
        sizes = []
        for _ in range(8):  # the same 32,000 rows, a vacuum after every 8,000
            await _page(conn, vacuum, 4_000)
            sizes.append(await _size(conn))
        assert vacuum.vacuums == 5
        assert max(sizes) <= unvacuumed / 3  # about one share: 8,000 rows


async def test_inside_a_transaction_it_does_not_vacuum(database_url):
    """A connection that is not in autocommit cannot vacuum: it is left alone, not broken."""
    async with await AsyncConnection.connect(database_url) as conn:
        vacuum = StagingVacuum(every_rows=1)
        await vacuum.after_page(conn, 10)
        assert vacuum.vacuums == 0
        await conn.execute("SELECT 1")
