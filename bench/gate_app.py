"""Case b's app: the production app plus the minimal app's page served twice.

``/v1/{account_id}/bench/earnings`` sits behind the gate (``v1_get``, permission
``api_earnings_list``); ``/open/{account_id}/bench/earnings`` is the same handler body
without it. Both run the minimal app's keyset query (``bench.minimal_app.fetch_page``) on
the production pool, so the difference between them is exactly the gate: the metering
statement, the checks in the middleware, ``_meta`` and the headers, and the ledger's final
status.
"""

from __future__ import annotations

from litestar import Litestar, Request, get

from app.asgi import create_app
from app.envelope import Envelope
from app.gate import v1_get
from bench.minimal_app import fetch_page


async def page(request: Request, account_id: int, marker: int) -> dict:
    async with request.app.state.pool.connection() as conn:  # autocommit, as the store routes
        return await fetch_page(conn, account_id, marker)


# The same parameters as ``open_page``: a store route takes its account id from the path
# too (the gate has checked it), so the two differ by the gate alone.
@v1_get("/v1/{account_id:int}/bench/earnings", permission="api_earnings_list")
async def gated_page(request: Request, account_id: int, marker: int) -> Envelope:
    return Envelope(data=await page(request, account_id, marker))


@get("/open/{account_id:int}/bench/earnings")
async def open_page(request: Request, account_id: int, marker: int) -> Envelope:
    return Envelope(data=await page(request, account_id, marker))


def create_bench_app() -> Litestar:
    app = create_app()
    app.register(gated_page)
    app.register(open_page)
    return app
