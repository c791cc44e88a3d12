"""``relay demo``: the whole stack on one machine, ready to call.

Starts (or joins) the embedded PostgreSQL unless a database URL is configured,
migrates it, provisions a demo organization with connected sandbox accounts and
a fresh API key, then runs the sandbox upstream, a sync worker and the API as
child processes until interrupted.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import httpx

from app.logging import configure_logging

from app.crypto.keyring import key_list, keyring_for
from app.db.embedded import resolve_database_url
from app.db.migrate import upgrade
from app.db.urls import plain_url
from app.settings import Settings, env_name

DEMO_ORGANIZATION = "demo"
DEMO_ACCOUNTS = (1001, 1002)
DEMO_CREDITS = 1_000_000
STARTUP_TIMEOUT = 60.0

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoAccess:
    api_key: str
    account_ids: tuple[int, ...]


def provision(database_url: str, settings: Settings) -> DemoAccess:
    """Idempotently create the demo organization and its sandbox accounts; mint a new key.

    A key is shown only once, so every run creates a new one (older demo keys keep working).
    """
    import psycopg

    from app import admin

    with psycopg.connect(plain_url(database_url), autocommit=True) as conn:
        try:
            admin.create_organization(
                conn, DEMO_ORGANIZATION, settings=settings, credits=DEMO_CREDITS
            )
        except admin.AdminError:
            pass  # created by an earlier run
        for account_id in DEMO_ACCOUNTS:
            admin.connect_account(
                conn, DEMO_ORGANIZATION, account_id, f"sandbox-{account_id}",
                keyring=keyring_for(settings), label="demo",
            )
        key = admin.create_key(conn, DEMO_ORGANIZATION, "admin", name="demo")
    return DemoAccess(api_key=key.secret, account_ids=DEMO_ACCOUNTS)


def _child_env(settings: Settings, database_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env[env_name("database_url")] = database_url
    # The children see a configured database, so they need the keys named: the embedded
    # default's key file (or RELAY_SECRET_KEYS when set).
    env[env_name("secret_keys")] = ",".join(key_list(settings))
    env[env_name("upstream_url")] = f"http://{settings.sandbox_host}:{settings.sandbox_port}"
    return env


def _wait_until_up(url: str, procs: list[subprocess.Popen]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("a demo process exited during start-up; see its log above")
        try:
            if httpx.get(url, timeout=1.0).status_code < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {STARTUP_TIMEOUT:.0f} s")


def _database(settings: Settings) -> str:
    return "configured" if settings.database_url else f"embedded under {settings.data_dir}"


def _banner(settings: Settings, access: DemoAccess) -> str:
    base = f"http://{settings.api_host}:{settings.api_port}"
    account = access.account_ids[0]
    auth = f'-H "Authorization: Bearer {access.api_key}"'
    return "\n".join(
        [
            "",
            "Creator Relay demo is running.",
            f"  API:      {base}   (docs: {base}/docs, health: {base}/health, status: {base}/status)",
            f"  Sandbox:  http://{settings.sandbox_host}:{settings.sandbox_port}",
            f"  Database: {_database(settings)}",
            f"  Accounts: {', '.join(map(str, access.account_ids))} (sandbox data, synced by the worker)",
            f"  API key:  {access.api_key}",
            "",
            "Try:",
            f"  curl {base}/health",
            f"  curl {auth} '{base}/v1/{account}/earnings'",
            f"  curl {auth} '{base}/v1/{account}/earnings/chart?by=tips'",
            f"  curl {auth} '{base}/v1/{account}/posts?limit=5&order=favorites_count_desc'",
            f"  curl {auth} '{base}/v1/{account}/chats?limit=3'",
            f"  curl {auth} '{base}/v1/gifs/trending?limit=2'",
            "",
            "Sync status: relay sync status    Stop: Ctrl-C",
            "",
        ]
    )


def _announce(settings: Settings, access: DemoAccess) -> None:
    """The banner: a readable block with RELAY_LOG_JSON=false, else one JSON log line
    (``demo_ready``) with the same facts, so every line the stack writes parses as JSON."""
    if not settings.log_json:
        print(_banner(settings, access), flush=True)
        return
    base = f"http://{settings.api_host}:{settings.api_port}"
    logger.info(
        "demo_ready",
        extra={
            "api": base,
            "docs": f"{base}/docs",
            "status_page": f"{base}/status",
            "sandbox": f"http://{settings.sandbox_host}:{settings.sandbox_port}",
            "database": _database(settings),
            "accounts": list(access.account_ids),
            "api_key": access.api_key,
            "try": f"curl -H 'Authorization: Bearer {access.api_key}' '{base}/v1/{access.account_ids[0]}/earnings'",
            "readable_banner": "RELAY_LOG_JSON=false make run",
        },
    )


def run_demo(settings: Settings) -> int:
    # SIGTERM ends the demo like Ctrl-C: children are stopped and the embedded server with them.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    configure_logging(settings, "cli")
    database_url = resolve_database_url(settings)
    logger.info("demo_database", extra={"database": _database(settings)})
    upgrade(database_url, keyring=keyring_for(settings))
    access = provision(database_url, settings)

    env = _child_env(settings, database_url)
    relay = [sys.executable, "-m", "app.cli"]
    procs: list[subprocess.Popen] = []
    try:
        procs.append(subprocess.Popen([*relay, "sandbox"], env=env))
        _wait_until_up(f"http://{settings.sandbox_host}:{settings.sandbox_port}/_sandbox/health", procs)
        procs.append(subprocess.Popen([*relay, "worker"], env=env))
        procs.append(subprocess.Popen([*relay, "serve"], env=env))
        _wait_until_up(f"http://{settings.api_host}:{settings.api_port}/health", procs)
        _announce(settings, access)
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
        return 1  # a child died on its own
    except KeyboardInterrupt:
        return 0
    except RuntimeError as exc:
        logger.error("demo_failed", extra={"error": str(exc)})
        return 1
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
