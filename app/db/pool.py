"""The psycopg connection pool of one process (the API's hot path and the workers)."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool
from psycopg_pool.base import AttemptWithBackoff

from app.db.urls import plain_url
from app.settings import Settings

# psycopg_pool retries a lost server after 1, 2, 4, 8 ... s, so after a restart requests
# would get 503s until the next retry, seconds later. Retry every ~0.25 s instead: an
# attempt against a stopped server is a refused connect, cheap for both sides.
AttemptWithBackoff.INITIAL_DELAY = 0.25
AttemptWithBackoff.DELAY_BACKOFF = 1.0


def create_pool(database_url: str, settings: Settings, *, name: str = "relay") -> AsyncConnectionPool:
    """A pool that is not opened yet: ``await pool.open()`` in the process's lifespan."""
    return AsyncConnectionPool(
        plain_url(database_url),
        min_size=settings.db_pool_min,
        max_size=settings.db_pool_max,
        name=name,
        open=False,
        # Checked on checkout (one empty round trip): after a database restart every pooled
        # connection is dead, and a request must get a fresh one, not a broken one.
        check=AsyncConnectionPool.check_connection,
        # While the server is unreachable a checkout fails fast (503), not after 30 s.
        timeout=settings.db_wait_timeout,
        kwargs={"application_name": f"creator-relay:{name}"},
    )
