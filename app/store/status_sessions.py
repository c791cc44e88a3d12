"""SQL of the status page's sign-in sessions (``status_sessions``): opened for an admin key
entered on the sign-in page, ended by signing out or by time. Which key a session belongs to,
and whether that key still counts, is read on every view (``app.store.status.session_viewer``).

The cookie carries 32 random bytes; only their SHA-256 digest is stored, as for API keys.
"""

from __future__ import annotations

import hashlib
import secrets

from psycopg import AsyncConnection

_OPEN_SQL = """
WITH ended AS (
    -- sessions are few (one per sign-in): the ended ones go as new ones come
    DELETE FROM status_sessions WHERE expires_at <= now()
)
INSERT INTO status_sessions (token_hash, api_key_id, expires_at)
VALUES (%s, %s, now() + make_interval(secs => %s))
"""

_CLOSE_SQL = "DELETE FROM status_sessions WHERE token_hash = %s"


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


async def open_session(conn: AsyncConnection, key_id: int, seconds: int) -> str:
    """A new session of the key ``key_id`` lasting ``seconds``: its token, for the cookie."""
    token = secrets.token_urlsafe(32)
    await conn.execute(_OPEN_SQL, (token_digest(token), key_id, seconds))
    return token


async def close_session(conn: AsyncConnection, token: str) -> None:
    await conn.execute(_CLOSE_SQL, (token_digest(token),))
