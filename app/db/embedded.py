"""The embedded default database: a PostgreSQL of our own when no URL is configured.

``pgserver`` ships PostgreSQL binaries in its wheel, so a fresh machine needs
nothing but pip. The cluster lives under ``<data_dir>/pgdata`` and is reused
across runs; several processes may share it (pgserver reference-counts its users
and stops the server when the last one exits).
"""

from __future__ import annotations

import logging
from pathlib import Path

from app.settings import Settings

log = logging.getLogger(__name__)


def start_embedded(pgdata: Path, *, keep_running: bool = False) -> str:
    """Start (or join) the PostgreSQL cluster at ``pgdata`` and return its plain URL."""
    import pgserver  # imported lazily: only the embedded default needs it

    # As root, pgserver runs PostgreSQL as a dedicated user and fixes ownership itself.
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(pgdata, cleanup_mode=None if keep_running else "stop")
    uri = server.get_uri()
    log.info("embedded_postgres_ready", extra={"pgdata": str(pgdata), "uri": uri})
    return uri


def stop_embedded(pgdata: Path) -> None:
    """Stop the cluster at ``pgdata`` when this process is its last user.

    Needed before its directory is removed: pgserver's own stop at exit reads its list of
    users from that directory, and without it leaves the server running.
    """
    import pgserver

    pgserver.get_server(pgdata).cleanup()


def resolve_database_url(settings: Settings) -> str:
    """The database URL to use: the configured one, else the embedded server's."""
    if settings.database_url:
        return settings.database_url
    return start_embedded(settings.data_dir.resolve() / "pgdata")
