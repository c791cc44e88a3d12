"""Run Alembic programmatically (``relay migrate``, tests, the demo)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parents[2]


def alembic_config(database_url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    # env.py takes the URL from here instead of reading settings.
    config.attributes["database_url"] = database_url
    # Alembic's records go to the process's own logging set-up (app.logging), not alembic.ini's.
    config.attributes["configure_logger"] = False
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)
