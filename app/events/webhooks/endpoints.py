"""Endpoint administration (``relay webhooks add|list|disable|redeliver|test``): plain SQL on
one autocommit connection, like the other admin commands."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row

from app.admin.service import AdminError
from app.crypto.keyring import Keyring
from app.db.rows import one
from app.events.types import EVENT_TYPES
from app.events.webhooks.addresses import RefusedURL, checked_url, refused_now
from app.events.webhooks.queue import LOG_ATTEMPT
from app.events.webhooks.signing import new_secret


def _organization_id(conn: psycopg.Connection, org: str) -> int:
    row = conn.execute(
        "SELECT id FROM organizations WHERE name = %s OR (%s ~ '^[0-9]{1,18}$' AND id = %s::text::bigint)",
        (org, org, org if org.isdigit() else "0"),
    ).fetchone()
    if row is None:
        raise AdminError(f"no organization {org!r}")
    return row[0]


def check_endpoint_url(url: str, *, allow_private: bool) -> None:
    """``AdminError`` naming the rule ``url`` breaks (docs/events.md, "Where deliveries go"):
    the URL rules, and a host that resolves now to an address that is not public unless
    ``allow_private``."""
    try:
        parsed = checked_url(url)
    except RefusedURL as exc:
        raise AdminError(f"url {url!r}: {exc}") from None
    reason = None if allow_private else refused_now(parsed)
    if reason is not None:
        raise AdminError(f"url {url!r}: {reason}")


def add_endpoint(
    conn: psycopg.Connection, org: str, url: str, types: list[str] | None, *, keyring: Keyring,
    allow_private: bool = False,
) -> tuple[int, str]:
    """A new active endpoint receiving ``types`` (None: all) from now on; (id, secret). The
    secret is stored encrypted: the caller shows it this once. ``allow_private``:
    RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES."""
    check_endpoint_url(url, allow_private=allow_private)
    for name in types or ():
        if name not in EVENT_TYPES:
            raise AdminError(f"unknown event type {name!r}; known: {', '.join(EVENT_TYPES)}")
    org_id = _organization_id(conn, org)
    secret = new_secret()
    # Starts after the newest event: an endpoint receives what happens once it exists
    # (``redeliver --since`` sends older ones).
    (endpoint_id,) = one(conn.execute(
        """
        INSERT INTO webhook_endpoints (organization_id, url, event_types, secret, cursor_tx, cursor_id)
        SELECT %s, %s, %s, %s, coalesce(max(tx), 0), coalesce(max(id), 0) FROM (
            SELECT tx, id FROM events WHERE organization_id = %s ORDER BY tx DESC, id DESC LIMIT 1) last
        RETURNING id
        """,
        (org_id, url, types, keyring.encrypt(secret), org_id),
    ).fetchone())
    return endpoint_id, secret


def list_endpoints(conn: psycopg.Connection, org: str | None = None) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """
            SELECT w.id, o.name AS organization, w.url, w.event_types, w.status, w.disabled_reason,
                   w.attempts, w.failing_since, w.next_attempt_at,
                   (SELECT max(created_at) FROM webhook_deliveries d
                    WHERE d.endpoint_id = w.id AND d.delivered) AS last_delivered_at
            FROM webhook_endpoints w JOIN organizations o ON o.id = w.organization_id
            WHERE %s::text IS NULL OR o.name = %s
            ORDER BY w.id
            """,
            (org, org),
        )
        return cur.fetchall()


def disable_endpoint(conn: psycopg.Connection, endpoint_id: int, reason: str) -> None:
    cur = conn.execute(
        "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = %s, disabled_at = now() WHERE id = %s",
        (reason, endpoint_id),
    )
    if cur.rowcount == 0:
        raise AdminError(f"no webhook endpoint {endpoint_id}")


def redeliver(conn: psycopg.Connection, endpoint_id: int, since: datetime) -> int:
    """Move the endpoint's position back to before its first event since ``since`` and make
    it due now (active again); returns how many events are queued for it."""
    cur = conn.execute(
        """
        UPDATE webhook_endpoints w
        SET cursor_tx = coalesce(first.tx - 1, w.cursor_tx),
            cursor_id = CASE WHEN first.tx IS NULL THEN w.cursor_id ELSE 9223372036854775807 END,
            status = 'active', disabled_reason = NULL, disabled_at = NULL,
            attempts = 0, failing_since = NULL, next_attempt_at = now()
        FROM (SELECT min(e.tx) AS tx FROM events e JOIN webhook_endpoints x ON x.organization_id = e.organization_id
              WHERE x.id = %(id)s AND e.occurred_at >= %(since)s) first
        WHERE w.id = %(id)s
        """,
        {"id": endpoint_id, "since": since},
    )
    if cur.rowcount == 0:
        raise AdminError(f"no webhook endpoint {endpoint_id}")
    (queued,) = one(conn.execute(
        """
        SELECT count(*) FROM events e JOIN webhook_endpoints w ON w.organization_id = e.organization_id
        WHERE w.id = %s AND (e.tx, e.id) > (w.cursor_tx, w.cursor_id)
          AND (w.event_types IS NULL OR e.type = ANY(w.event_types))
        """,
        (endpoint_id,),
    ).fetchone())
    return queued


def endpoint_to_test(conn: psycopg.Connection, endpoint_id: int) -> dict[str, Any]:
    """What sending the endpoint a test event needs (id, organization_id, url, secret,
    status), whatever its status."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT id, organization_id, url, secret, status FROM webhook_endpoints WHERE id = %s", (endpoint_id,)
        ).fetchone()
    if row is None:
        raise AdminError(f"no webhook endpoint {endpoint_id}")
    return row


def log_test(conn: psycopg.Connection, endpoint_id: int, outcome: dict[str, Any]) -> None:
    """The test event's attempt in the endpoint's delivery log (no event row: ``event_id``
    NULL). It leaves the endpoint's queue, retries and disabling as they were."""
    conn.execute(LOG_ATTEMPT, {**outcome, "endpoint": endpoint_id, "event": None, "attempt": 1})
