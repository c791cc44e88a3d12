"""Relay processes in tests: ``relay ...`` as a child process aimed at the test database
and the sandbox, and waiting for what it should have done (kill, resume, takeover tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fixtures.database import TEST_KEYS_ENV

ROOT = Path(__file__).resolve().parents[2]
#: Rows per upstream page unless a test asks for another size.
PAGE = 500


def worker_env(database_url: str, sandbox, **extra: str) -> dict[str, str]:
    """The environment of a relay process: the test database, the sandbox and its clock, a
    2 s lease (a killed holder's task is taken over quickly) and quick polls."""
    return {
        **os.environ,
        **TEST_KEYS_ENV,
        "RELAY_DATABASE_URL": database_url,
        "RELAY_UPSTREAM_URL": sandbox.url,
        "RELAY_SYNC_CLOCK": "sandbox",
        "RELAY_SYNC_LEASE_SECONDS": "2",
        "RELAY_SYNC_POLL_SECONDS": "0.2",
        "RELAY_SYNC_PAGE_SIZE": str(PAGE),
        "RELAY_LOG_JSON": "false",
        "RELAY_LOG_LEVEL": "WARNING",
        **extra,
    }


def relay(*args: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env)


