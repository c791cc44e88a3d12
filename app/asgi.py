"""The API application: ``create_app(settings)`` builds one Litestar app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar

from app.db.embedded import resolve_database_url
from app.db.pool import create_pool
from app.logging import configure_logging
from app.routes import route_handlers
from app.settings import Settings


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or Settings.from_env()
    configure_logging(settings)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        database_url = resolve_database_url(settings)
        pool = create_pool(database_url, settings, name="api")
        # Do not wait for the database: the API starts and /health reports 503 until it answers.
        await pool.open(wait=False)
        app.state.pool = pool
        try:
            yield
        finally:
            await pool.close()

    app = Litestar(
        route_handlers=route_handlers(),
        lifespan=[lifespan],
        debug=False,
    )
    app.state.settings = settings
    return app
