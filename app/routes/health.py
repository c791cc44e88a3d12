"""GET /health: unauthenticated liveness and database reachability."""

from __future__ import annotations

import asyncio
from typing import Literal

import msgspec
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from psycopg_pool import AsyncConnectionPool

from app.gate.document import AnswerOperation


async def database_reachable(pool: AsyncConnectionPool) -> bool:
    """Within the pool's checkout timeout (RELAY_DB_WAIT_TIMEOUT), like every other route."""
    try:
        async with asyncio.timeout(pool.timeout):
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
        return True
    except Exception:  # any failure to reach the database is "unavailable"
        return False


class Health(msgspec.Struct, frozen=True):
    status: Literal["ok", "unavailable"]
    database: Literal["ok", "unreachable"]


HEALTHY = Health("ok", "ok")
UNHEALTHY = Health("unavailable", "unreachable")


@get(
    "/health",
    include_in_schema=True,
    tags=["system"],
    summary="Service health",
    responses={503: ResponseSpec(Health, description="The database does not answer; see Retry-After.", generate_examples=False)},
    operation_class=AnswerOperation,
)
async def health(request: Request) -> Response[Health]:
    """200 when the database answers, 503 when it does not. Needs no API key."""
    if await database_reachable(request.app.state.pool):
        return Response(HEALTHY, status_code=200)
    return Response(UNHEALTHY, status_code=503, headers={"Retry-After": "1"})


ROUTES = [health]
