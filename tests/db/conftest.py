"""Two organizations with two accounts each, rows of both in every analyst table, and a
read-only role per organization made by ``relay db grant-readonly --org``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from itertools import count

import psycopg
import pytest
from click.testing import CliRunner
from psycopg import sql
from psycopg.types.json import Jsonb
from sqlalchemy import JSON, Table

from app.admin.service import connect_account, create_organization
from app.cli import main
from app.db.readonly import analyst_tables
from app.db.tenancy import account_column

_START = datetime(2025, 5, 1, 12, tzinfo=UTC)


@dataclass
class Organization:
    name: str
    accounts: set[int]
    role: str  # made by grant-readonly --org


@dataclass
class TwoOrganizations:
    a: Organization
    b: Organization

    @property
    def every_account(self) -> set[int]:
        return self.a.accounts | self.b.accounts


def grant_readonly(*args: str) -> str:
    """``relay db grant-readonly ARGS`` (RELAY_DATABASE_URL set by the caller); its output."""
    result = CliRunner().invoke(main, ["db", "grant-readonly", *args])
    assert result.exit_code == 0, result.output
    return result.output


def drop_role(db: psycopg.Connection, role: str) -> None:
    db.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
    db.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


@contextmanager
def as_role(db: psycopg.Connection, role: str) -> Iterator[psycopg.Connection]:
    """The connection with ``SET ROLE role`` (an operator's session becoming the analyst)."""
    db.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
    try:
        yield db
    finally:
        db.execute("RESET ROLE")


def accounts_seen(db: psycopg.Connection, relation: str) -> set[int]:
    return {r[0] for r in db.execute(sql.SQL("SELECT DISTINCT account_id FROM {}").format(sql.Identifier(relation)))}


def _value(table: Table, column, account_id: int, n: int):
    """A value of the column's type; ``n`` keeps keys distinct."""
    if column.name == account_column(table):
        return account_id
    if isinstance(column.type, JSON):
        return Jsonb({})
    kind = column.type.python_type
    if kind is datetime:
        return _START + timedelta(hours=n)
    if kind is date:
        return (_START + timedelta(days=n)).date()
    if kind is list:
        return []
    values = {int: n, float: float(n), str: f"v{n}", Decimal: Decimal(n + 1), bool: False}
    return values[kind]


def fill_row(db: psycopg.Connection, table: Table, account_id: int, n: int) -> None:
    """One row of any per-account table: its key and required columns, from their types
    (a table added later is filled without a change here). A row the triggers already
    made (the rollups) is kept."""
    columns = [c for c in table.columns if c.primary_key or (not c.nullable and c.server_default is None)]
    key = list(table.primary_key.columns)
    db.execute(
        sql.SQL("INSERT INTO {} ({}) VALUES ({}) {}").format(
            sql.Identifier(table.name),
            sql.SQL(", ").join(sql.Identifier(c.name) for c in columns),
            sql.SQL(", ").join(sql.Placeholder() for _ in columns),
            # A table without a key (the page write's staging) takes every row.
            sql.SQL("ON CONFLICT ({}) DO NOTHING").format(sql.SQL(", ").join(sql.Identifier(c.name) for c in key))
            if key else sql.SQL(""),
        ),
        [_value(table, c, account_id, n) for c in columns],
    )


def fill_every_analyst_table(db: psycopg.Connection, accounts: set[int], rows: int = 2) -> None:
    for table in analyst_tables():
        for account_id in sorted(accounts):
            for n in range(rows):
                fill_row(db, table, account_id, n)


_account_ids = count(9100, 10)


@pytest.fixture
def two_organizations(db, keyring, database_url, monkeypatch) -> Iterator[TwoOrganizations]:
    monkeypatch.setenv("RELAY_DATABASE_URL", database_url)
    tag = uuid.uuid4().hex[:8]
    orgs = []
    for letter in "ab":
        name = f"org_{letter}_{tag}"
        create_organization(db, name)
        first = next(_account_ids)
        accounts = {first, first + 1}
        for account_id in accounts:
            connect_account(db, name, account_id, f"token-{account_id}", keyring=keyring)
        orgs.append(Organization(name, accounts, f"analysts_{letter}_{tag}"))
    try:
        for org in orgs:
            grant_readonly(org.role, "--org", org.name, "--password", "pw")
        yield TwoOrganizations(*orgs)
    finally:
        db.execute("RESET ROLE")
        for org in orgs:
            if db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (org.role,)).fetchone():
                drop_role(db, org.role)
