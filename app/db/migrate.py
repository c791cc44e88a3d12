"""Run Alembic programmatically (``relay migrate``, tests, the demo)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import psycopg
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from app.db.urls import plain_url

if TYPE_CHECKING:
    from app.crypto.keyring import Keyring
    from app.db.citus import Progress, Step

ROOT = Path(__file__).resolve().parents[2]


def alembic_config(database_url: str, keyring: Keyring | None = None) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    # env.py takes the URL from here instead of reading settings.
    config.attributes["database_url"] = database_url
    # The keys of the migration that encrypts stored secrets (0009); None: from the settings.
    config.attributes["keyring"] = keyring
    # Alembic's records go to the process's own logging set-up (app.logging), not alembic.ini's.
    config.attributes["configure_logger"] = False
    return config


def upgrade(database_url: str, revision: str = "head", *, keyring: Keyring | None = None) -> None:
    command.upgrade(alembic_config(database_url, keyring), revision)


def downgrade(database_url: str, revision: str = "base", *, keyring: Keyring | None = None) -> None:
    command.downgrade(alembic_config(database_url, keyring), revision)


def migrate(database_url: str, revision: str = "head", *, keyring: Keyring | None = None,
            progress: Progress | None = None) -> list[Step]:
    """``relay migrate``: upgrade to ``revision``; then, at the head on a Citus coordinator,
    distribute the account tables not yet distributed, in one transaction (app/db/citus.py;
    the steps taken). The models declare the head's layout, so an older revision stays
    undistributed until the head is reached. On plain PostgreSQL only the upgrade."""
    from app.db.citus import distribute, is_coordinator

    config = alembic_config(database_url, keyring)
    command.upgrade(config, revision)
    if revision not in ("head", ScriptDirectory.from_config(config).get_current_head()):
        return []
    with psycopg.connect(plain_url(database_url), autocommit=True) as conn:
        if not is_coordinator(conn):
            return []
        return distribute(conn, online=False, progress=progress)
