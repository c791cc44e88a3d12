"""The psycopg connection pool of one process (the API's hot path and the workers)."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from app.db.urls import plain_url
from app.settings import Settings


def create_pool(database_url: str, settings: Settings, *, name: str = "relay") -> AsyncConnectionPool:
    """A pool that is not opened yet: ``await pool.open()`` in the process's lifespan."""
    return AsyncConnectionPool(
        plain_url(database_url),
        min_size=settings.db_pool_min,
        max_size=settings.db_pool_max,
        name=name,
        open=False,
        # No per-checkout health check: it costs a round trip on every request. A
        # connection found broken in use is discarded when it returns to the pool.
        kwargs={"application_name": f"creator-relay:{name}"},
    )
