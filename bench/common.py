"""What every benchmark shares: a scratch database and a description of the machine."""

from __future__ import annotations

import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.db.migrate import upgrade
from tests.fixtures.database import postgres_server, scratch_database


@contextmanager
def bench_database(server_url: str | None = None) -> Iterator[str]:
    """A fresh database migrated to head, dropped afterwards.

    On ``server_url``, else ``BENCH_DATABASE_URL`` / ``TEST_DATABASE_URL``, else an embedded
    PostgreSQL in a temporary directory.
    """
    configured = server_url or os.environ.get("BENCH_DATABASE_URL")
    with postgres_server(configured, prefix="relay-bench-pg-") as server:
        with scratch_database(server, "relay_bench") as url:
            upgrade(url)
            yield url


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()}"
