"""Administration: organizations, API keys, connected accounts and credits.

The service functions behind ``relay orgs|keys|accounts|credits``, also used by the demo
and by tests. Each takes an open psycopg connection and commits nothing itself: the caller
owns the transaction (the CLI uses one autocommit connection per command).
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from app.gate.keys import NewKey, generate_key
from app.permissions import ROLES
from app.settings import Settings


class AdminError(ValueError):
    """A refused administrative action, with a message for the operator."""


@dataclass(frozen=True, slots=True)
class CreatedKey:
    id: int
    organization_id: int
    role: str
    prefix: str
    #: The key itself: shown once, never stored.
    secret: str

    def __repr__(self) -> str:
        return f"CreatedKey(id={self.id}, prefix={self.prefix!r}, role={self.role!r})"


def organization_id(conn: psycopg.Connection, org: str | int) -> int:
    """The id of an organization given by id or by name."""
    if isinstance(org, int) or str(org).isdigit():
        row = conn.execute("SELECT id FROM organizations WHERE id = %s", (int(org),)).fetchone()
    else:
        row = conn.execute("SELECT id FROM organizations WHERE name = %s", (org,)).fetchone()
    if row is None:
        raise AdminError(f"no organization {org!r}")
    return row[0]


def create_organization(
    conn: psycopg.Connection,
    name: str,
    *,
    settings: Settings | None = None,
    limit_minute: int | None = None,
    limit_day: int | None = None,
    credits: int = 0,
) -> int:
    """Create an organization; its rate windows default to the settings' values."""
    defaults = settings or Settings()
    row = conn.execute(
        """
        INSERT INTO organizations (name, limit_minute, limit_day)
        VALUES (%s, %s, %s)
        ON CONFLICT (name) DO NOTHING
        RETURNING id
        """,
        (name, limit_minute or defaults.default_limit_minute, limit_day or defaults.default_limit_day),
    ).fetchone()
    if row is None:
        raise AdminError(f"organization {name!r} exists already")
    if credits:
        add_credits(conn, row[0], credits, note="initial credits")
    return row[0]


def create_key(
    conn: psycopg.Connection, org: str | int, role: str, *, name: str | None = None
) -> CreatedKey:
    """Create a key for an organization; the returned ``secret`` is the only copy."""
    if role not in ROLES:
        raise AdminError(f"unknown role {role!r}; roles: {', '.join(sorted(ROLES))}")
    org_id = organization_id(conn, org)
    new: NewKey = generate_key()
    (key_id,) = conn.execute(
        """
        INSERT INTO api_keys (organization_id, role, name, prefix, key_hash)
        VALUES (%s, %s, %s, %s, %s)
        RETURNING id
        """,
        (org_id, role, name, new.prefix, new.digest),
    ).fetchone()
    return CreatedKey(id=key_id, organization_id=org_id, role=role, prefix=new.prefix, secret=new.secret)


def revoke_key(conn: psycopg.Connection, key_id: int) -> None:
    """Revoke a key. It stops working at once: the gate reads the key on every request."""
    row = conn.execute(
        "UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = %s RETURNING id",
        (key_id,),
    ).fetchone()
    if row is None:
        raise AdminError(f"no key {key_id}")


def connect_account(
    conn: psycopg.Connection,
    org: str | int,
    account_id: int,
    upstream_token: str,
    *,
    label: str | None = None,
) -> None:
    """Link an upstream account (and its credential) to an organization.

    Reconnecting an account to the same organization updates its credential; an account
    connected to another organization is refused (one owner per upstream account).
    """
    org_id = organization_id(conn, org)
    row = conn.execute(
        """
        INSERT INTO accounts (id, organization_id, upstream_token, label)
        VALUES (%s, %s, %s, %s)
        ON CONFLICT (id) DO UPDATE
            SET upstream_token = excluded.upstream_token,
                label = coalesce(excluded.label, accounts.label),
                status = 'active',
                updated_at = now()
            WHERE accounts.organization_id = excluded.organization_id
        RETURNING id
        """,
        (account_id, org_id, upstream_token, label),
    ).fetchone()
    if row is None:
        raise AdminError(f"account {account_id} is connected to another organization")


def add_credits(
    conn: psycopg.Connection, org: str | int, amount: int, *, note: str | None = None
) -> int:
    """Add credits to an organization's balance (recorded as a grant); returns the balance."""
    if amount <= 0:
        raise AdminError("the amount must be a positive number of credits")
    org_id = organization_id(conn, org)
    with conn.transaction():
        conn.execute(
            "INSERT INTO credit_grants (organization_id, amount, note) VALUES (%s, %s, %s)",
            (org_id, amount, note),
        )
        (balance,) = conn.execute(
            "UPDATE organizations SET credit_balance = credit_balance + %s WHERE id = %s "
            "RETURNING credit_balance",
            (amount, org_id),
        ).fetchone()
    return balance
