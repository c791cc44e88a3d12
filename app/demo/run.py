"""``relay demo``: the whole stack on one machine, ready to call.

Starts (or joins) the embedded PostgreSQL unless a database URL is configured,
migrates it, provisions a demo organization with connected sandbox accounts and
a fresh API key, then runs the sandbox upstream, a sync worker and the API as
child processes until interrupted. The banner (key, addresses, examples) comes last, framed;
the processes log only warnings unless RELAY_LOG_LEVEL says otherwise, so it stays on screen.
On the way out it stops its children and the embedded PostgreSQL it started, whatever else
joined that server meanwhile.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time

import httpx

from app.crypto.keyring import key_list, keyring_for
from app.db.embedded import embedded_pgdata, embedded_running, start_embedded, stop_embedded_now
from app.db.migrate import upgrade
from app.db.urls import plain_url
from app.demo.banner import DemoAccess, announce, announce_start, database_text
from app.logging import configure_logging, json_lines
from app.settings import Settings, env_name

DEMO_ORGANIZATION = "demo"
DEMO_ACCOUNTS = (1001, 1002)
DEMO_CREDITS = 1_000_000
STARTUP_TIMEOUT = 60.0

logger = logging.getLogger(__name__)


def provision(database_url: str, settings: Settings) -> DemoAccess:
    """Idempotently create the demo organization and its sandbox accounts; mint a new key.

    A key is shown only once, so every run creates a new one (older demo keys keep working).
    """
    import psycopg

    from app.admin import service as admin

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
    # The worker reads the sandbox's clock: moving it (POST /_sandbox/clock/advance) brings
    # new rows, and they sync.
    env.setdefault(env_name("sync_clock"), "sandbox")
    if settings.log_level is None:
        env[env_name("log_level")] = "WARNING"  # the banner stays the last thing on screen
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


def run_demo(settings: Settings) -> int:
    # SIGTERM ends the demo like Ctrl-C: children are stopped and the embedded server with them.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    configure_logging(settings, "cli", quiet=True)
    json_logs = json_lines(settings)
    if settings.log_level is None and json_logs:
        logger.setLevel(logging.INFO)  # the demo's own few lines, demo_ready among them
    announce_start(settings, json_logs)
    if settings.database_url:
        return _run_stack(settings, settings.database_url, json_logs)
    pgdata = embedded_pgdata(settings)
    started_database = not embedded_running(pgdata)
    try:
        # pgserver would stop the server only when its last user leaves, which may never
        # happen (a user killed without its exit hook stays registered): we stop it here.
        return _run_stack(settings, start_embedded(pgdata, keep_running=True), json_logs)
    finally:
        if started_database:
            stop_embedded_now(pgdata)


def _run_stack(settings: Settings, database_url: str, json_logs: bool) -> int:
    logger.info("demo_database", extra={"database": database_text(settings)})
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
        announce(settings, access, json_logs)
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
