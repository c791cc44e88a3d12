"""Store-side ground truth: the sandbox's checksum recomputed from stored payloads.

Keys per resource as docs/upstream.md ("Ground truth") defines them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import psycopg

from app.crypto.keyring import Keyring
from app.db.rows import one
from sandbox.core.checksum import checksum
from tests.fixtures.database import TEST_SECRET_KEYS


def money(value) -> str:
    cents = round(float(value) * 100)
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def _earning(p, row) -> str:
    return f"{p['id']}|{p['status']}|{money(p['net'])}"


def _chargeback(p, row) -> str:
    return f"{p['id']}|{p['createdAt']}|{p['payment']['id']}"


def _payout(p, row) -> str:
    return f"{p['invoiceId']}|{p['state']}|{money(p['amount'])}"


def _post(p, row) -> str:
    return f"{p['id']}|{p['postedAtPrecise']}|{p['favoritesCount']}|{p['tipsAmount']}"


def _link(p, row) -> str:
    return f"{p['id']}|{p['createdAt']}"


def _daily(p, row) -> str:
    clicks = "" if p["clicks"] is None else p["clicks"]
    return f"{row['link_id']}|{p['timestamp']}|{clicks}|{p['subs']}|{p['revenue']}|{p['spenders']}"


# resource -> (sandbox truth name, time column, key builder)
RESOURCES = {
    "earnings": ("earnings", "created_at", _earning),
    "chargebacks": ("chargebacks", "created_at", _chargeback),
    "payout_requests": ("payout_requests", "created_at", _payout),
    "posts": ("posts", "posted_at", _post),
    "tracking_links": ("tracking_links", "created_at", _link),
    "tracking_link_daily_stats": ("tracking_link_daily", "date", _daily),
}


def store_truth(conn: psycopg.Connection, account_id: int, resource: str, start: int, end: int,
                where: str = "", params: tuple = ()) -> dict:
    """``{"count", "checksum"}`` of the stored rows with start <= time <= end."""
    _, column, key = RESOURCES[resource]
    lo = datetime.fromtimestamp(start, UTC)
    hi = datetime.fromtimestamp(end, UTC)
    bounds: tuple[date, date] = (lo.date(), hi.date()) if column == "date" else (lo, hi)
    extra = "link_id," if resource == "tracking_link_daily_stats" else ""
    sql = (f"SELECT {extra} payload FROM {resource} WHERE account_id = %s "
           f"AND {column} BETWEEN %s AND %s {where}")
    with conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        cur.execute(sql, (account_id, *bounds, *params))
        return checksum(key(row["payload"], row) for row in cur)


def sandbox_truth(sandbox, account_id: int, resource: str, start: int, end: int, **filters) -> dict:
    answer = sandbox.truth(
        account_id, RESOURCES[resource][0], start=_iso(start), end=_iso(end), **filters
    )
    return {"count": answer["count"], "checksum": answer["checksum"]}


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def add_account(conn: psycopg.Connection, account_id: int) -> None:
    """An organization and an active account whose upstream token the sandbox accepts."""
    (org,) = one(conn.execute(
        "INSERT INTO organizations (name, limit_minute, limit_day) VALUES (%s, 1000, 50000) RETURNING id",
        (f"org-{account_id}",),
    ).fetchone())
    conn.execute(
        "INSERT INTO accounts (id, organization_id, upstream_token) VALUES (%s, %s, %s)",
        (account_id, org, Keyring([TEST_SECRET_KEYS]).encrypt(f"sandbox-{account_id}")),
    )
