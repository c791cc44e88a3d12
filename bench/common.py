"""What every benchmark shares: the PostgreSQL server and scratch databases on it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command

from app.db.migrate import alembic_config
from tests.fixtures.database import postgres_server, scratch_database


@contextmanager
def bench_server() -> Iterator[str]:
    """The server benchmarks make their databases on: ``BENCH_DATABASE_URL``, else
    ``TEST_DATABASE_URL``, else ``RELAY_DATABASE_URL``, else an embedded PostgreSQL in a
    temporary directory (stopped and removed afterwards)."""
    configured = next((os.environ[n] for n in ("BENCH_DATABASE_URL", "TEST_DATABASE_URL", "RELAY_DATABASE_URL")
                       if os.environ.get(n)), None)
    with postgres_server(configured, prefix="relay-bench-pg-") as server:
        yield server


@contextmanager
def bench_database(server_url: str) -> Iterator[str]:
    """A fresh database on the server, migrated to head (quietly), dropped afterwards."""
    with scratch_database(server_url, "relay_bench") as url:
        config = alembic_config(url)
        config.attributes["configure_logger"] = False  # the run prints its table, not migration logs
        command.upgrade(config, "head")
        yield url
