"""The store benchmark's app: the production app plus a minimal, ungated twin of the feed.

``/v1/{account_id}/earnings`` is the production store-served route (gate, coverage check,
keyset page, envelope). ``/open/{account_id}/earnings`` is the baseline the issue names: a
minimal Litestar route running the same keyset query (``app.store.earnings.feed_statement``)
with psycopg on the same pool, and nothing else -- no gate, no coverage check.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
from litestar import Litestar, Request, get

from app.asgi import create_app
from app.params import parse_timestamp
from app.store.earnings import FEED_PAGE_SIZE, FeedQuery, feed_statement


@get("/open/{account_id:int}/earnings")
async def open_feed(request: Request, account_id: int, start_date: str, marker: int | None = None,
                    marker_id: str | None = None) -> dict:
    now = datetime.now(UTC)
    query = FeedQuery(parse_timestamp("start_date", start_date), now, marker=marker, marker_id=marker_id)
    statement, params = feed_statement(query, account_id, now)
    async with request.app.state.pool.connection() as conn:
        await conn.set_autocommit(True)  # as the store route does: one round trip per query
        try:
            found = await (await conn.execute(statement, params, prepare=True)).fetchall()
        finally:
            await conn.set_autocommit(False)
    page = found[:FEED_PAGE_SIZE]
    return {"data": {"list": [msgspec.Raw(p) for _, _, p in page], "hasMore": len(found) > FEED_PAGE_SIZE,
                     "nextMarker": page[-1][0] if page else None}}


def create_bench_app() -> Litestar:
    app = create_app()
    app.register(open_feed)
    return app
