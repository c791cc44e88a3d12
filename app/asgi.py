"""The API application: ``create_app(settings)`` builds one Litestar app."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from litestar import Litestar, Router
from litestar.handlers import HTTPRouteHandler
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from psycopg_pool import AsyncConnectionPool

from app.crypto.keyring import keyring_for
from app.db.embedded import resolve_database_url
from app.db.pool import create_pool, pool_conninfo, pool_kwargs
from app.db.shard_reads import ReadPools
from app.errors import exception_handlers
from app.gate import Gatekeeper, LedgerWriter, Meter, refuse_ungated_routes
from app.gate.allowance import hold_seconds
from app.gate.listener import ChangeListener
from app.gate.shares import Shares
from app.gate.state import GateRuntime
from app.html_headers import DOCS_CSP, page_headers
from app.logging import configure_logging
from app.openapi.docs_page import OfflineSwaggerPlugin
from app.request_context import add_request_id_header, request_middleware
from app.routes import route_handlers
from app.settings import Settings
from app.status.cache import RecentReads
from app.store.batched import BatchedReads
from app.upstream.client import UpstreamClient

API_DESCRIPTION = """Relays and aggregates the data of connected creator-platform accounts.

Every route under `/v1/` needs an API key (`Authorization: Bearer <key>` or `X-API-Key: <key>`)
whose role grants the route's permission (named in each operation's description). Successes
answer the envelope (`data`, `_pagination`, `_meta`); errors answer `{"error", "code"}`.
Checks run in this order: authentication (401), rate limit (429), permission (403),
account (404), validation (400, 413), credits (402), then the handler (424 when the upstream
fails). 401, 429, 5xx and requests the client gives up cost 0 credits; everything else costs 1."""


def operation_id(route_handler: HTTPRouteHandler, http_method: str, path_components: list) -> str:
    """An operation's id: its handler's name, camelCased (``earnings_feed``: ``earningsFeed``),
    which is what the generated client names the call (``clients/python/``, ``make client``).
    Handler names are unique (tests/client/test_generated_client.py)."""
    first, *rest = route_handler.handler_name.split("_")
    return first + "".join(part.title() for part in rest)


def openapi_config() -> OpenAPIConfig:
    """The schema at /docs/openapi.json and the interactive page at /docs (no key needed),
    with the HTML pages' security headers (``app.html_headers``)."""
    return OpenAPIConfig(
        title="Creator Relay API",
        version="1",
        description=API_DESCRIPTION,
        operation_id_creator=operation_id,
        openapi_router=Router(
            path="/docs", route_handlers=[], response_headers=page_headers(DOCS_CSP), include_in_schema=False
        ),
        # Every file the page loads is served by the API itself (``app.openapi.docs_page``).
        render_plugins=[OfflineSwaggerPlugin(path="/"), JsonRenderPlugin()],
        components=Components(
            security_schemes={
                "BearerAuth": SecurityScheme(type="http", scheme="bearer"),
                "ApiKeyAuth": SecurityScheme(type="apiKey", name="X-API-Key", security_scheme_in="header"),
            }
        ),
    )


def _listen_kwargs(pool: AsyncConnectionPool) -> dict[str, Any]:
    """The pool's connection settings for the listener's own connection, named apart."""
    settings = {k: v for k, v in pool_kwargs(pool).items() if k != "autocommit"}
    return {**settings, "application_name": "creator-relay:api-gate"}


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_env()
    configure_logging(settings, "api")
    gate = GateRuntime()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        database_url = resolve_database_url(settings)
        pool = create_pool(database_url, settings, name="api")
        # Do not wait for the database: the API starts and /health reports 503 until it answers.
        await pool.open(wait=False)
        app.state.pool = pool
        # Store reads (coverage and rows, both from the same server) may go to a replica.
        read_pool = pool
        if settings.database_read_url:
            read_pool = create_pool(settings.database_read_url, settings, name="api-read")
            await read_pool.open(wait=False)
        # On a Citus coordinator, each account's store reads go to the worker holding it
        # (app.db.shard_reads); not with a replica, whose reads must all come from it.
        direct = settings.citus_direct_reads and read_pool is pool
        read_pools = app.state.read_pools = ReadPools(read_pool, settings, coordinator=pool if direct else None)
        app.state.batched_reads = BatchedReads(read_pool, route=read_pools)
        app.state.meter = Meter(pool)
        gatekeeper = gate.gatekeeper = Gatekeeper(
            app.state.meter, hold=hold_seconds(settings.ledger_interval), max_deferred=settings.org_share_deferred
        )
        # What the gatekeeper holds is used only while this listener hears of every change.
        listener = ChangeListener(pool_conninfo(pool), gatekeeper.forget, connect_timeout=5.0, **_listen_kwargs(pool))
        gatekeeper.trust(listener)
        listener.start()
        gate.ledger = LedgerWriter(pool, gatekeeper.unused, gatekeeper.written, interval=settings.ledger_interval)
        gatekeeper.settle_through(gate.ledger.settle)
        gate.ledger.start()
        try:
            async with UpstreamClient(settings, deadline=settings.upstream_live_deadline) as upstream:
                app.state.upstream = upstream
                # Everything built so far lives as long as the process: out of the garbage
                # collector's sight, so a full collection walks only what requests made
                # (without it, one took 30-45 ms every few seconds under load: every request
                # in flight waited for it). What requests make is freed by reference counts:
                # collect it rarely (RELAY_API_GC_YOUNG_THRESHOLD).
                gc.freeze()
                gc.set_threshold(settings.api_gc_young_threshold, *gc.get_threshold()[1:])
                yield
        finally:
            await listener.close()
            await gatekeeper.close()
            await gate.ledger.close()
            await app.state.meter.close()
            await app.state.batched_reads.close()
            await read_pools.close()
            if read_pool is not pool:
                await read_pool.close()
            await pool.close()

    app = Litestar(
        route_handlers=route_handlers(),
        lifespan=[lifespan],
        middleware=[DefineMiddleware(request_middleware, gate=gate, access_log=settings.access_log)],
        before_send=[add_request_id_header],
        on_startup=[refuse_ungated_routes],
        exception_handlers=exception_handlers(),
        request_max_body_size=settings.max_body_bytes,
        openapi_config=openapi_config(),
        logging_config=None,  # app.logging configured the process; Litestar's would replace it
        debug=False,
    )
    app.state.settings = settings
    app.state.status_reads = RecentReads(settings.status_cache_seconds)  # GET /status
    app.state.shares = Shares.from_settings(settings)  # fair shares per organization
    app.state.gate = gate  # the gatekeeper and the ledger writer, once the lifespan has begun
    # Built now: without keys the app does not start; with them, every request that calls
    # the upstream decrypts its account's credential with this one keyring (and its cache).
    app.state.keyring = keyring_for(settings)
    return app
