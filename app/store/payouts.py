"""Chargebacks and payout requests from the store, offset-paged under a snapshot marker.

Both are the same walk over a different table (``app.store.snapshot``); only the table,
the upstream path and the row mapping differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import AsyncConnection

from app.store.mapping import write_items
from app.store.snapshot import SnapshotQuery, snapshot_page
from app.store.source import Coverage, Reader, Sourced
from app.upstream import paths

#: The payout requests' fixed page size (the spec gives that route no ``limit``).
PAYOUT_REQUESTS_PAGE_SIZE = 10


@dataclass(frozen=True, slots=True)
class SnapshotResource:
    """A snapshot-paged resource: its table (= its sync_state.resource) and upstream path."""

    table: str
    path: str
    sends_limit: bool  # payout requests have a fixed page size: no limit is sent


CHARGEBACKS = SnapshotResource("chargebacks", paths.PAYOUTS_CHARGEBACKS, sends_limit=True)
PAYOUT_REQUESTS = SnapshotResource("payout_requests", paths.PAYOUTS_REQUESTS, sends_limit=False)


async def page(reader: Reader, source: SnapshotResource, query: SnapshotQuery) -> Sourced[dict]:
    async def from_store(coverage: Coverage) -> dict:
        return await reader.read(
            lambda conn: snapshot_page(conn, source.table, reader.account_id, query, now=reader.now, coverage=coverage)
        )

    async def from_upstream() -> dict:
        return await reader.live(
            source.path,
            query.upstream_params(with_limit=source.sends_limit),
            expect={"list": list, "marker": int},
        )

    async def remember(conn: AsyncConnection, body: dict) -> None:
        await write_items(conn, source.table, reader.account_id, body["list"])

    return await reader.answer(
        source.table,
        query.start,
        query.remaining_end(reader.now),
        from_store=from_store,
        from_upstream=from_upstream,
        remember=remember,
    )
