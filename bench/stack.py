"""The services of a benchmark run, started as a user starts them, and the accounts they serve.

The sandbox (``relay sandbox``), the API (``relay serve``), sync passes (``relay sync ...``)
and the separate minimal app (uvicorn with uvloop and httptools) all run as processes of
:class:`bench.procs.Processes`, so they are stopped whatever happens.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg

from app.admin import service as admin
from app.crypto.keyring import Keyring
from app.crypto.keys import generate_key
from app.db.urls import plain_url
from bench.procs import Processes, free_port, relay_command, run_to_end
from tests.fixtures.sandbox import SandboxServer

ROOT = Path(__file__).resolve().parents[1]
#: Longest a sync command of the benchmark may run (a 1,000,000-row backfill on a busy machine).
SYNC_TIMEOUT = 1800.0

#: RELAY_SECRET_KEYS of every process of one bench run (a configured database needs keys).
SECRET_KEYS = generate_key()


@dataclass(frozen=True)
class Stack:
    """Where the run's database and sandbox are, and how to start things against them."""

    procs: Processes
    database_url: str
    sandbox: SandboxServer
    logs: Path

    def env(self, **settings: str) -> dict[str, str]:
        """Environment of a ``relay`` process: default settings except the database, the
        upstream and ``settings`` (RELAY_* names without the prefix, lower case)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
        env.update(RELAY_DATABASE_URL=self.database_url, RELAY_UPSTREAM_URL=self.sandbox.url,
                   RELAY_SECRET_KEYS=SECRET_KEYS)
        env.update({f"RELAY_{name.upper()}": value for name, value in settings.items()})
        return env

    def with_database(self, database_url: str) -> Stack:
        return Stack(self.procs, database_url, self.sandbox, self.logs)

    def serve(self, workers: int, name: str = "api") -> str:
        """``relay serve --workers N`` on a free port; its base URL once it answers."""
        port = free_port()
        argv = relay_command("serve", "--port", str(port), "--workers", str(workers))
        self.procs.start(f"{name}-{workers}", argv, self.env(), ready=f"http://127.0.0.1:{port}/health")
        return f"http://127.0.0.1:{port}"

    def uvicorn(self, target: str, workers: int, name: str, *extra: str, **env: str) -> str:
        """An ASGI app of bench/ under uvicorn with uvloop and httptools (the fastest stock set-up)."""
        port = free_port()
        argv = [sys.executable, "-m", "uvicorn", target, *extra, "--port", str(port), "--workers", str(workers),
                "--loop", "uvloop", "--http", "httptools", "--no-access-log", "--log-level", "warning"]
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))  # keep the caller's too
        self.procs.start(f"{name}-{workers}", argv, {**self.env(), **env, "PYTHONPATH": path},
                         ready=f"http://127.0.0.1:{port}/health")
        return f"http://127.0.0.1:{port}"

    def sync(self, name: str, *args: str, **settings: str) -> tuple[float, int]:
        """Run ``relay sync ARGS`` to the end: (seconds, peak RSS in kB)."""
        return run_to_end(relay_command("sync", *args), self.env(**settings), self.logs / f"{name}.log", SYNC_TIMEOUT)


def start_sandbox(procs: Processes) -> SandboxServer:
    """``relay sandbox`` on a free port, its clock running in real time (as a user runs it)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    url = f"http://127.0.0.1:{port}"
    procs.start("sandbox", relay_command("sandbox", "--host", "127.0.0.1", "--port", str(port)), env,
                ready=f"{url}/_sandbox/health")
    sandbox = SandboxServer(url, epoch=0)
    sandbox.control.timeout = httpx.Timeout(600)  # the ground truth of 1,000,000 rows takes a while
    return sandbox


def provision(database_url: str, name: str, *account_ids: int) -> str:
    """An organization with limits and credits far above any run, the accounts connected to
    the sandbox; returns an admin key."""
    with psycopg.connect(plain_url(database_url), autocommit=True) as conn:
        admin.create_organization(conn, name, limit_minute=10**9, limit_day=2 * 10**9, credits=10**12)
        for account_id in account_ids:
            admin.connect_account(conn, name, account_id, SandboxServer.token(account_id),
                                  keyring=Keyring([SECRET_KEYS]))
        return admin.create_key(conn, name, "admin").secret


def get_json(url: str, key: str, timeout: float = 600) -> dict:
    response = httpx.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=timeout)
    response.raise_for_status()
    return response.json()
