"""The benchmark's app: the production app plus one store-backed page served twice.

``/v1/{account_id}/bench/earnings`` sits behind the gate (permission ``api_earnings_list``);
``/open/{account_id}/bench/earnings`` is the same handler body without it. Both run one
psycopg keyset query on the ``earnings`` table of the production schema, so the difference
between them is exactly the gate: the gate statement, the guard, the post-validation step,
``_meta`` and the headers, and the ledger's status recording.

``RELAY_BENCH_SYNC_COMMIT=on`` makes the gate statement commit synchronously (for the
comparison in docs/benchmarks.md).
"""

from __future__ import annotations

import os
from typing import Annotated

from litestar import Litestar, Request, get
from litestar.params import Parameter

from app.asgi import create_app
from app.envelope import Envelope
from app.gate import ConnectedAccount, v1_get
from app.gate import statement

PAGE_SQL = """
SELECT id, created_at, net, payload::text
FROM earnings
WHERE account_id = %s AND created_at < coalesce(%s, 'infinity'::timestamptz)
ORDER BY created_at DESC, id DESC
LIMIT %s
"""

Limit = Annotated[int, Parameter(ge=1, le=100)]


async def keyset_page(request: Request, account_id: int, limit: int) -> list:
    async with request.app.state.pool.connection() as conn:
        await conn.set_autocommit(True)
        try:
            cursor = await conn.execute(PAGE_SQL, (account_id, None, limit))
            return [
                {"id": r[0], "createdAt": r[1].isoformat(), "net": float(r[2]), "raw": r[3]}
                for r in await cursor.fetchall()
            ]
        finally:
            await conn.set_autocommit(False)


@v1_get("/v1/{account_id:int}/bench/earnings", permission="api_earnings_list")
async def gated_page(request: Request, account: ConnectedAccount, limit: Limit = 10) -> Envelope:
    return Envelope(data={"list": await keyset_page(request, account.account_id, limit)})


@get("/open/{account_id:int}/bench/earnings")
async def open_page(request: Request, account_id: int, limit: Limit = 10) -> Envelope:
    return Envelope(data={"list": await keyset_page(request, account_id, limit)})


@get("/open/bench/meter")
async def meter_stats(request: Request) -> dict:
    """How many gate statements metered how many requests (the mean batch size)."""
    meter = request.app.state.meter
    return {"statements": meter.statements, "metered": meter.metered}


def create_bench_app() -> Litestar:
    if os.environ.get("RELAY_BENCH_SYNC_COMMIT") == "on":
        statement.GATE_SQL = statement.GATE_SQL.replace("'synchronous_commit', 'off'", "'synchronous_commit', 'on'")
    app = create_app()
    app.register(gated_page)
    app.register(open_page)
    app.register(meter_stats)
    return app
