"""GET /status: the organization's sync and earnings as an HTML page, for admin keys.

Outside the gate (no credit, no ledger row): the key is checked here, by one query, and
must be an admin key; the page shows that key's organization only.
"""

from __future__ import annotations

from datetime import UTC, datetime

from litestar import Request, Response, get

from app.errors import ApiError
from app.gate.keys import key_digest, presented_key
from app.gate.middleware import UNAUTHENTICATED
from app.status_page import render
from app.store import status as store

CHART_DAYS = 90


@get("/status", tags=["system"], summary="Status page (HTML, admin keys)", include_in_schema=True)
async def status_page(request: Request) -> Response[str]:
    """Per account and resource: coverage, lag, last run, last error and backfill progress,
    and a 90-day chart of net earnings from the store. Needs an admin key."""
    key = presented_key(request.headers)
    if key is None:
        raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
    async with request.app.state.pool.connection() as conn:
        viewer = await store.viewer(conn, key_digest(key))
        if viewer is None:
            raise ApiError(401, UNAUTHENTICATED, "unauthenticated")
        if viewer.role != "admin":
            raise ApiError(403, "the status page needs an admin key", "forbidden")
        rows = await store.sync_rows(conn, viewer.organization_id)
        days = await store.daily_earnings(conn, viewer.organization_id, CHART_DAYS)
    html = render(viewer, rows, days, datetime.now(UTC))
    return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})


ROUTES = [status_page]
