"""A test-only app: the real gate (``create_app``) around a few real handlers.

The gate's mechanisms (every status, the order of checks, credits) are proven on handlers
whose outcome the test chooses; the same gate serves the production routes, which
``test_tenancy`` covers route by route.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Literal

from litestar import Litestar, Request
from litestar.params import FromQuery, QueryParameter

from app.asgi import create_app
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get, v1_post
from app.paging import next_page_url
from app.params import bad_parameter
from app.settings import Settings
from app.upstream import paths

#: How many times a probe handler body ran (to prove refused requests never reach it).
CALLS: list[str] = []
#: ``probe/database`` waits while this is clear (a test stops the database meanwhile).
GO_ON = threading.Event()
GO_ON.set()


@v1_get("/v1/{account_id:int}/probe", permission="api_chats_list")
async def probe(
    request: Request,
    account: ConnectedAccount,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 10,
    order: FromQuery[Literal["recent", "old"]] = "recent",
    filter: FromQuery[Literal["unread", "pinned"] | None] = None,  # noqa: A002
    list_id: FromQuery[int | None] = None,
    more: FromQuery[bool] = False,
) -> Envelope:
    if filter is not None and list_id is not None:
        raise bad_parameter("filter", "cannot be combined with list_id")
    CALLS.append("probe")
    following = {"limit": limit, "offset": limit} if more else None
    return Envelope.page({"account": account.account_id}, next_page_url(request, following))


@v1_get("/v1/{account_id:int}/probe/upstream", permission="api_chats_list")
async def probe_upstream(account: ConnectedAccount, upstream: Upstream) -> Envelope:
    CALLS.append("upstream")
    return Envelope(data=await upstream.get_json(account, paths.VAULT_MEDIA_PROCESSING))


@v1_get("/v1/{account_id:int}/probe/boom", permission="api_chats_list")
async def probe_boom(account: ConnectedAccount) -> Envelope:
    CALLS.append("boom")
    raise RuntimeError("secret internals: password=hunter2 at /srv/app/db.py:12")


@v1_get("/v1/{account_id:int}/probe/database", permission="api_chats_list")
async def probe_database(request: Request, account: ConnectedAccount) -> Envelope:
    CALLS.append("database")
    await asyncio.to_thread(GO_ON.wait)
    async with request.app.state.pool.connection() as conn:
        await conn.execute("SELECT 1")
    return Envelope(data={"database": "answered"})


@v1_post("/v1/{account_id:int}/probe/read", permission="api_notifications_mark_read")
async def probe_mark_read(account: ConnectedAccount) -> Envelope:
    CALLS.append("read")
    return Envelope(data={"success": True})


@v1_get("/v1/probe/global", permission="api_gifs_trending")
async def probe_global() -> dict:
    CALLS.append("global")
    return {"data": {"ok": True}}


PROBES = [probe, probe_upstream, probe_boom, probe_database, probe_mark_read, probe_global]


def probe_app(settings: Settings) -> Litestar:
    app = create_app(settings)
    for handler in PROBES:
        app.register(handler)
    return app
