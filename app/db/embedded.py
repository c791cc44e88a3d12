"""The embedded default database: a PostgreSQL of our own when no URL is configured.

``pgserver`` (the ``embedded`` extra: ``make install`` has it, the container image does not)
ships PostgreSQL binaries in its wheel, so a fresh machine needs nothing but pip. The
cluster lives under ``<data_dir>/pgdata`` and is reused across runs; several processes may
share it (pgserver reference-counts its users and stops the server when the last one exits).
``relay demo`` stops the server it started whoever else joined (``stop_embedded_now``).
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

from app.settings import Settings

log = logging.getLogger(__name__)


class EmbeddedDatabaseError(RuntimeError):
    """The embedded PostgreSQL is not installed or did not start (a one-line message)."""


def _pgserver():
    """The pgserver module, imported lazily (only the embedded default needs it)."""
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI): harmless.
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
            import pgserver
    except ImportError:
        raise EmbeddedDatabaseError(
            "RELAY_DATABASE_URL is not set and the embedded PostgreSQL is not installed: "
            "set RELAY_DATABASE_URL, or install it with pip install 'creator-relay[embedded]'"
        ) from None
    return pgserver


def embedded_running(pgdata: Path) -> bool:
    """Whether a PostgreSQL server runs on ``pgdata`` now (its postmaster.pid names a live
    process)."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False  # no file, no number, no such process
    return True


def start_embedded(pgdata: Path, *, keep_running: bool = False) -> str:
    """Start (or join) the PostgreSQL cluster at ``pgdata`` and return its plain URL."""
    pgserver = _pgserver()
    # As root, pgserver runs PostgreSQL as a dedicated user and fixes ownership itself.
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    try:
        server = pgserver.get_server(pgdata, cleanup_mode=None if keep_running else "stop")
    except Exception as exc:  # pgserver raises what pg_ctl/initdb raised; it logged the server's log
        raise EmbeddedDatabaseError(
            f"the embedded PostgreSQL under {pgdata} did not start ({type(exc).__name__}); "
            f"its log: {pgdata / 'log'}"
        ) from exc
    uri = server.get_uri()
    log.info("embedded_postgres_ready", extra={"pgdata": str(pgdata), "uri": uri})
    return uri


def stop_embedded(pgdata: Path) -> None:
    """Stop the cluster at ``pgdata`` when this process is its last user.

    Needed before its directory is removed: pgserver's own stop at exit reads its list of
    users from that directory, and without it leaves the server running.
    """
    _pgserver().get_server(pgdata).cleanup()


def stop_embedded_now(pgdata: Path) -> None:
    """Stop the cluster at ``pgdata`` now, whoever else joined it (their connections end).

    pgserver stops a server only when its last registered user exits, and a user killed
    without its exit hook stays registered for good: the one that started it stops it.
    """
    if not embedded_running(pgdata):
        return
    pgserver = _pgserver()
    server = pgserver.get_server(pgdata)
    pgserver.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=server.system_user)
    log.info("embedded_postgres_stopped", extra={"pgdata": str(pgdata)})


def embedded_pgdata(settings: Settings) -> Path:
    return settings.data_dir.resolve() / "pgdata"


def resolve_database_url(settings: Settings) -> str:
    """The database URL to use: the configured one, else the embedded server's."""
    if settings.database_url:
        return settings.database_url
    return start_embedded(embedded_pgdata(settings))
