"""GET /status: the organization's sync and earnings as an HTML page, for admin keys.

Outside the gate (no credit): the key is checked here, by one statement that also counts
the view in the organization's minute window (429 with Retry-After when it is full); the
view's ledger row (credits 0) is written when its answer has gone (``MinuteView``). It must
be an admin key; the page shows that key's organization only, from data read at most once
per ``RELAY_STATUS_CACHE_SECONDS`` per organization and process (``app.status_cache``).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from litestar import Request, Response, get
from psycopg_pool import AsyncConnectionPool

from app.errors import ApiError
from app.gate.keys import key_digest, presented_key
from app.gate.middleware import RATE_LIMITED, UNAUTHENTICATED
from app.gate.state import METERED_STATE, MinuteView
from app.status_page import render
from app.store import status as store

CHART_DAYS = 90


@get("/status", tags=["system"], summary="Status page (HTML, admin keys)", include_in_schema=True)
async def status_page(request: Request) -> Response[str]:
    """Per account and resource: coverage, lag, last run, last error and backfill progress,
    and a 90-day chart of net earnings from the store. Needs an admin key; counts against
    the organization's minute window (no credit)."""
    key = presented_key(request.headers)
    if key is None:
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    state = request.app.state
    async with state.pool.connection() as conn:
        viewer = await store.viewer(conn, key_digest(key))
    if viewer is None:
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    if not viewer.counted:
        retry_after = max(math.ceil(60 - viewer.at % 60), 1)  # the minute window's end
        raise ApiError(429, RATE_LIMITED, "rate_limited", headers={"Retry-After": str(retry_after)})
    # Its ledger row is written by the app's middleware, with the final status.
    request.scope["state"][METERED_STATE] = MinuteView(
        viewer.organization_id, viewer.key_id, viewer.at, request.scope, state.gate.ledger
    )
    if viewer.role != "admin":
        raise ApiError(403, "the status page needs an admin key", "forbidden")
    rows, days = await state.status_reads.get(viewer.organization_id, lambda: _read(state.pool, viewer.organization_id))
    html = render(viewer, rows, days, datetime.now(UTC))
    return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})


async def _read(pool: AsyncConnectionPool, organization_id: int) -> tuple[list[store.SyncRow], list[store.DayEarnings]]:
    async with pool.connection() as conn:
        return await store.sync_rows(conn, organization_id), await store.daily_earnings(conn, organization_id, CHART_DAYS)


ROUTES = [status_page]
