"""Run Alembic programmatically (``relay migrate``, tests, the demo)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from alembic import command
from alembic.config import Config

if TYPE_CHECKING:
    from app.crypto.keyring import Keyring

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
