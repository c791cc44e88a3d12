"""GET /health: unauthenticated liveness and database reachability."""

from __future__ import annotations

import asyncio

from litestar import Request, Response, get
from psycopg_pool import AsyncConnectionPool


async def database_reachable(pool: AsyncConnectionPool) -> bool:
    """Within the pool's checkout timeout (RELAY_DB_WAIT_TIMEOUT), like every other route."""
    try:
        async with asyncio.timeout(pool.timeout):
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
        return True
    except Exception:  # any failure to reach the database is "unavailable"
        return False


@get("/health", include_in_schema=True, tags=["system"], summary="Service health")
async def health(request: Request) -> Response[dict]:
    """200 when the database answers, 503 when it does not. Needs no API key."""
    if await database_reachable(request.app.state.pool):
        return Response({"status": "ok", "database": "ok"}, status_code=200)
    return Response(
        {"status": "unavailable", "database": "unreachable"},
        status_code=503,
        headers={"Retry-After": "1"},
    )


ROUTES = [health]
