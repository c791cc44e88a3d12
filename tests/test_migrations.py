"""Models and migrations agree, and the chain round-trips."""

from __future__ import annotations

import psycopg
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from app.db.metadata import metadata
from app.db.migrate import downgrade, upgrade
from app.db.urls import sqlalchemy_url
from app.permissions import PERMISSIONS, ROLES


def _schema_diff(url: str) -> list:
    engine = create_engine(sqlalchemy_url(url))
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return compare_metadata(context, metadata)
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {r[0] for r in rows}


def test_models_and_migrations_agree(database_url: str) -> None:
    assert _schema_diff(database_url) == []


def test_downgrade_to_base_and_upgrade_to_head_round_trips(empty_database) -> None:
    with empty_database() as url:
        upgrade(url)
        at_head = _tables(url)
        assert set(metadata.tables) <= at_head
        downgrade(url, "base")
        assert _tables(url) <= {"alembic_version"}
        upgrade(url)
        assert _tables(url) == at_head
        assert _schema_diff(url) == []


def test_seeded_roles_grant_exactly_the_permissions_the_code_declares(db) -> None:
    assert {r[0] for r in db.execute("SELECT name FROM permissions")} == set(PERMISSIONS)
    grants: dict[str, set[str]] = {}
    for role, permission in db.execute("SELECT role, permission FROM role_permissions"):
        grants.setdefault(role, set()).add(permission)
    assert grants == {name: set(perms) for name, (_, perms) in ROLES.items()}
