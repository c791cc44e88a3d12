"""One export, shared by the route and ``relay export``: the window checked against the
stored coverage, then the encoded bytes, batch by batch."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

from psycopg import AsyncConnection

from app.exports import rows as store
from app.exports.formats import encoder
from app.exports.rows import Connect
from app.store.source import Coverage


class OutsideCoverage(Exception):
    """The asked window is not inside what the store holds completely."""


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def window_inside(
    coverage: Coverage, resource: str, start: datetime | None, end: datetime | None
) -> tuple[datetime, datetime]:
    """[start, end] with the coverage's bounds for the missing ends; raises
    ``OutsideCoverage`` naming the coverage when the window is not inside it."""
    if coverage.start is None or coverage.end is None:
        raise OutsideCoverage(f"the store holds no complete range of {resource} for this account yet")
    lower = start or coverage.start
    upper = end or coverage.end
    if lower < coverage.start or upper > coverage.end or upper < lower:
        raise OutsideCoverage(
            f"window {_iso(lower)}..{_iso(upper)} is not inside the stored coverage of {resource}: "
            f"{_iso(coverage.start)}..{_iso(coverage.end)}"
        )
    return lower, upper


async def checked_window(
    conn: AsyncConnection, account_id: int, resource: str, start: datetime | None, end: datetime | None
) -> tuple[datetime, datetime]:
    return window_inside(await store.coverage(conn, account_id, resource), resource, start, end)


async def encoded(
    connect: Connect,
    account_id: int,
    resource: str,
    fmt: str,
    start: datetime,
    end: datetime,
    *,
    batch: int,
    on_rows: Callable[[int], None] | None = None,
) -> AsyncIterator[bytes]:
    """The export's bytes: header (or Parquet magic), one chunk per batch, then the end.
    ``connect``: a connection for each batch's statement (``app.exports.rows``)."""
    out = encoder(resource, fmt)
    yield out.start()
    async for rows in store.stream_rows(connect, account_id, resource, start, end, batch):
        chunk, count = out.batch(rows), len(rows)
        rows.clear()  # the rows go before the chunk waits for its reader: one copy in memory
        if on_rows is not None:
            on_rows(count)
        yield chunk
    yield out.finish()
