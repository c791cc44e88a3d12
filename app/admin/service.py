"""Administration: organizations, API keys, connected accounts and credits.

The service functions behind ``relay orgs|keys|accounts|credits``, also used by the demo
and by tests. Each takes an open psycopg connection and commits nothing itself: the caller
owns the transaction (the CLI uses one autocommit connection per command).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import psycopg
from psycopg.rows import dict_row

from app.crypto.keyring import UnreadableSecret
from app.db.readonly import refresh_analyst_scopes
from app.db.rows import one
from app.gate.keys import NewKey, generate_key
from app.permissions import ROLES
from app.settings import Settings

if TYPE_CHECKING:
    from app.crypto.keyring import Keyring


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
    credits: int | None = None,
) -> int:
    """Create an organization; its rate windows and starting credits default to the
    settings' values (``RELAY_DEFAULT_*``)."""
    defaults = settings or Settings()
    if credits is None:
        credits = defaults.default_credits
    if credits < 0:
        raise AdminError("the starting credits must not be negative")
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
    (key_id,) = one(conn.execute(
        """
        INSERT INTO api_keys (organization_id, role, name, prefix, key_hash)
        VALUES (%s, %s, %s, %s, %s)
        RETURNING id
        """,
        (org_id, role, name, new.prefix, new.digest),
    ).fetchone())
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
    keyring: Keyring,
    label: str | None = None,
) -> None:
    """Link an upstream account (and its credential, stored encrypted) to an organization.

    Reconnecting an account to the same organization updates its credential; an account
    connected to another organization is refused (one owner per upstream account).

    The organization's analyst roles read the account's rows from when it commits: the
    analysts' scopes are refreshed with it (``refresh_analyst_scopes``).
    """
    org_id = organization_id(conn, org)
    with conn.transaction():
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
            (account_id, org_id, keyring.encrypt(upstream_token), label),
        ).fetchone()
        if row is None:
            raise AdminError(f"account {account_id} is connected to another organization")
        refresh_analyst_scopes(conn)


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
        (balance,) = one(conn.execute(
            "UPDATE organizations SET credit_balance = credit_balance + %s WHERE id = %s "
            "RETURNING credit_balance",
            (amount, org_id),
        ).fetchone())
    return balance


# --- listings and lifecycle (relay orgs list|show, keys list|rotate, accounts, credits show) ---


def _rows(conn: psycopg.Connection, sql: str, params: tuple = ()) -> list[dict]:
    with conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute(sql, params).fetchall()


def list_organizations(conn: psycopg.Connection) -> list[dict]:
    """Every organization with its limits, balance and how many keys and accounts it has."""
    return _rows(
        conn,
        """
        SELECT o.id, o.name, o.limit_minute, o.limit_day, o.credit_balance, o.created_at,
               (SELECT count(*) FROM api_keys k WHERE k.organization_id = o.id
                   AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()))
                   AS active_keys,
               (SELECT count(*) FROM accounts a WHERE a.organization_id = o.id) AS accounts
        FROM organizations o ORDER BY o.id
        """,
    )


def show_organization(conn: psycopg.Connection, org: str | int) -> dict:
    """One organization with its keys, accounts and today's usage."""
    org_id = organization_id(conn, org)
    (summary,) = [o for o in list_organizations(conn) if o["id"] == org_id]
    usage = _rows(
        conn,
        """
        SELECT count(*) AS requests_today, count(*) FILTER (WHERE debited) AS credits_debited_today
        FROM usage_ledger WHERE organization_id = %s AND created_at >= date_trunc('day', now(), 'UTC')
        """,
        (org_id,),
    )[0]
    return {**summary, **usage, "keys": list_keys(conn, org_id), "accounts": list_accounts(conn, org_id)}


def list_keys(conn: psycopg.Connection, org: str | int | None = None) -> list[dict]:
    """Keys (never their secrets): prefix, role, state (active, expiring, expired, revoked)."""
    org_id = None if org is None else organization_id(conn, org)
    return _rows(
        conn,
        """
        SELECT k.id, o.name AS organization, k.role, k.name, k.prefix, k.created_at,
               k.expires_at, k.revoked_at, k.last_used_at,
               CASE WHEN k.revoked_at IS NOT NULL THEN 'revoked'
                    WHEN k.expires_at IS NOT NULL AND k.expires_at <= now() THEN 'expired'
                    WHEN k.expires_at IS NOT NULL THEN 'expiring'
                    ELSE 'active' END AS state
        FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE %s::bigint IS NULL OR k.organization_id = %s::bigint
        ORDER BY k.id
        """,
        (org_id, org_id),
    )


def rotate_key(conn: psycopg.Connection, key_id: int, overlap_seconds: int) -> CreatedKey:
    """A new key with the old one's organization, role and name; the old key keeps working
    for ``overlap_seconds`` (the gate refuses it after its ``expires_at``)."""
    if overlap_seconds < 0:
        raise AdminError("the overlap must not be negative")
    with conn.transaction():
        row = conn.execute(
            """
            UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'),
                                                   now() + make_interval(secs => %s))
            WHERE id = %s AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
            RETURNING organization_id, role, name
            """,
            (overlap_seconds, key_id),
        ).fetchone()
        if row is None:
            raise AdminError(f"no active key {key_id} (unknown, revoked or expired)")
        org_id, role, name = row
        return create_key(conn, org_id, role, name=name)


def list_accounts(conn: psycopg.Connection, org: str | int | None = None) -> list[dict]:
    """Connected accounts (never their credentials) with their status and sync coverage."""
    org_id = None if org is None else organization_id(conn, org)
    return _rows(
        conn,
        """
        SELECT a.id, o.name AS organization, a.label, a.status, a.created_at, a.updated_at,
               s.coverage_start, s.coverage_end, s.last_success_at,
               coalesce(s.resources_failing, 0) AS resources_failing
        FROM accounts a JOIN organizations o ON o.id = a.organization_id
        -- sync_state summed per account, then joined: Citus sums it on the shards; grouped
        -- after the join it refuses a.label (it plans accounts as a subquery, keyless)
        LEFT JOIN (
            SELECT account_id, min(coverage_start) AS coverage_start, max(coverage_end) AS coverage_end,
                   max(last_success_at) AS last_success_at, count(last_error) AS resources_failing
            FROM sync_state GROUP BY account_id
        ) s ON s.account_id = a.id
        WHERE %s::bigint IS NULL OR a.organization_id = %s::bigint
        ORDER BY a.id
        """,
        (org_id, org_id),
    )


def _set_account(conn: psycopg.Connection, account_id: int, sql: str, params: tuple) -> None:
    if conn.execute(sql, params).fetchone() is None:
        raise AdminError(f"no account {account_id}")


def disconnect_account(conn: psycopg.Connection, account_id: int) -> None:
    """Turn an account off (status ``paused``): the sync stops enqueuing its work, and every
    API route that names it answers 409 ``account_disconnected`` (the gate hears of it at
    once); what is stored stays."""
    _set_account(
        conn, account_id,
        "UPDATE accounts SET status = 'paused', updated_at = now() WHERE id = %s RETURNING id",
        (account_id,),
    )


def reconnect_account(
    conn: psycopg.Connection, account_id: int, upstream_token: str | None, *, keyring: Keyring
) -> None:
    """The account is active again, with a new upstream credential (stored encrypted) or,
    with None, the one it has (after ``disconnect_account``); its failed sync tasks are due
    at once."""
    if upstream_token is not None and not upstream_token.strip():
        raise AdminError("the new credential must not be empty")
    stored = None if upstream_token is None else keyring.encrypt(upstream_token)
    with conn.transaction():
        _set_account(
            conn, account_id,
            "UPDATE accounts SET upstream_token = coalesce(%s, upstream_token), status = 'active', "
            "updated_at = now() WHERE id = %s RETURNING id",
            (stored, account_id),
        )
        conn.execute(
            "UPDATE sync_tasks SET due_at = now(), failures = 0 WHERE account_id = %s AND failures > 0",
            (account_id,),
        )


def account_credential(conn: psycopg.Connection, account_id: int, *, keyring: Keyring) -> str:
    """The account's stored upstream credential, decrypted (to check it again)."""
    row = conn.execute("SELECT upstream_token FROM accounts WHERE id = %s", (account_id,)).fetchone()
    if row is None:
        raise AdminError(f"no account {account_id}")
    try:
        return keyring.decrypt(row[0])
    except UnreadableSecret as exc:
        raise AdminError(f"the stored credential of account {account_id} is unreadable ({exc}): "
                         "give a new one") from None


def credits_summary(conn: psycopg.Connection, org: str | int) -> dict:
    """An organization's balance, what was granted and what was debited."""
    org_id = organization_id(conn, org)
    return _rows(
        conn,
        """
        SELECT o.id, o.name, o.credit_balance AS balance,
               (SELECT coalesce(sum(amount), 0)::bigint FROM credit_grants g
                WHERE g.organization_id = o.id) AS granted,
               (SELECT count(*) FROM usage_ledger l WHERE l.organization_id = o.id AND l.debited)
                   AS debited
        FROM organizations o WHERE o.id = %s
        """,
        (org_id,),
    )[0]
