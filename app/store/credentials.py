"""Upstream credentials of an organization's accounts: the API's repository for them.

They are stored encrypted (``app.crypto.keyring``); ``readable`` opens one. The gate reads
a request's account credential in its own statement; the trending-GIFs route names no
account, but the upstream serves it only to a signed-in account: it borrows the credential
of one of the caller organization's connected accounts, active ones first (then the
oldest), so answers are stable; never a disconnected account's (``relay accounts
disconnect``: its credential is not used until it is reconnected).
"""

from __future__ import annotations

from psycopg import AsyncConnection
from psycopg.rows import class_row

from app.crypto.keyring import Keyring, UnreadableSecret
from app.errors import ApiError
from app.upstream.client import UpstreamAccount

_ORGANIZATION_CREDENTIAL_SQL = """
SELECT a.id AS account_id, a.upstream_token AS token
FROM accounts a JOIN api_keys k ON k.organization_id = a.organization_id
WHERE k.id = %(key_id)s AND a.status <> 'paused'
ORDER BY a.status = 'active' DESC, a.id
LIMIT 1
"""


async def organization_credential(conn: AsyncConnection, key_id: int) -> UpstreamAccount | None:
    """A credential of the organization that owns API key ``key_id``; None when it has no
    connected account that is not disconnected."""
    async with conn.cursor(row_factory=class_row(UpstreamAccount)) as cursor:
        await cursor.execute(_ORGANIZATION_CREDENTIAL_SQL, {"key_id": key_id})
        return await cursor.fetchone()


def readable(keyring: Keyring, account_id: int, stored: str) -> UpstreamAccount:
    """The account with its credential decrypted; 424 when no key opens it (a lost or removed
    key): a failed dependency the operator fixes, never a 500, and never the stored value."""
    try:
        return UpstreamAccount(account_id, keyring.decrypt(stored))
    except UnreadableSecret:
        raise ApiError(
            424,
            f"the stored upstream credential of account {account_id} cannot be decrypted with "
            "this server's keys; an operator must restore the key or reconnect the account",
            "credential_unreadable",
        ) from None
