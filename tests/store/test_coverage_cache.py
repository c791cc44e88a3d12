"""The coverage cache: a coverage read is reused for its TTL, then read again (real database)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import psycopg

from app.store.source import CoverageCache, read_coverage

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _cover(db, account_id: int, resource: str, end: datetime) -> None:
    db.execute(
        "INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (account_id, resource) DO UPDATE"
        " SET coverage_end = excluded.coverage_end, last_success_at = excluded.last_success_at",
        (account_id, resource, EPOCH, end, end),
    )


def cached(cache: CoverageCache, conn, account_id: int, resource):
    """The cache's coverage of (account, resource), read on ``conn`` when it holds none."""
    return cache.read_once(account_id, resource, lambda: read_coverage(conn, account_id, resource))


async def test_a_coverage_is_reused_within_its_ttl_and_read_again_after(db, database_url, make_org, connect_account):
    connect_account(make_org(), 4242)
    first, later = datetime(2025, 1, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC)
    _cover(db, 4242, "earnings", first)
    clock = Clock()
    cache = CoverageCache(ttl=2.0, clock=clock)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        assert (await cached(cache, conn, 4242, "earnings")).end == first
        _cover(db, 4242, "earnings", later)  # the sync moved on
        clock.now = 1.9
        assert (await cached(cache, conn, 4242, "earnings")).end == first  # reused: no read
        clock.now = 2.0
        assert (await cached(cache, conn, 4242, "earnings")).end == later  # expired: read again
        # Another key is its own entry: a resource with no sync_state row covers nothing.
        assert (await cached(cache, conn, 4242, ("earnings", "posts"))).end is None


async def test_a_full_cache_drops_its_oldest_entry(db, database_url, make_org, connect_account):
    org = make_org()
    for account in (4243, 4244):
        connect_account(org, account)
        _cover(db, account, "posts", datetime(2025, 1, 1, tzinfo=UTC))
    cache = CoverageCache(ttl=60.0, clock=Clock(), maxsize=1)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await cached(cache, conn, 4243, "posts")
        await cached(cache, conn, 4244, "posts")
        _cover(db, 4243, "posts", datetime(2025, 3, 1, tzinfo=UTC))
        # 4243 was evicted by 4244, so it is read again (and sees the newer coverage).
        assert (await cached(cache, conn, 4243, "posts")).end == datetime(2025, 3, 1, tzinfo=UTC)


async def test_concurrent_misses_share_one_read(db, database_url, make_org, connect_account):
    connect_account(make_org(), 4245)
    _cover(db, 4245, "earnings", datetime(2025, 1, 1, tzinfo=UTC))
    cache = CoverageCache(ttl=60.0, clock=Clock())
    reads = []

    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        async def read():
            reads.append(1)
            return await read_coverage(conn, 4245, "earnings")

        found = await asyncio.gather(*(cache.read_once(4245, "earnings", read) for _ in range(20)))

    assert len(reads) == 1
    assert {c.end for c in found} == {datetime(2025, 1, 1, tzinfo=UTC)}
