"""A read-only role for analysts: SELECT on the synced data and the analyst views, nothing else.

``relay db grant-readonly ROLE`` runs :func:`grant_readonly`. It never grants the platform
tables (API key hashes, upstream credentials, metering): only what docs/data.md documents
for analysts. It is idempotent: run it again after a migration adds a view.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

#: What analysts may read (docs/data.md): the synced tables, the rollup and the views.
ANALYST_RELATIONS = (
    "earnings",
    "chargebacks",
    "payout_requests",
    "posts",
    "tracking_links",
    "tracking_link_daily_stats",
    "earnings_daily",
    "posts_counters",
    "earnings_net_per_day",
    "chargeback_rate_per_month",
    "post_performance",
)


def grant_readonly(conn: psycopg.Connection, role: str, *, password: str | None = None) -> bool:
    """Create ``role`` if missing (LOGIN with ``password``, else a NOLOGIN group role),
    make its sessions read-only and grant SELECT on the analyst relations.
    Returns True when the role was created."""
    name = sql.Identifier(role)
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if exists is None:
        if password is None:
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(name))
        else:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(name, sql.Literal(password)))
    database = conn.execute("SELECT current_database()").fetchone()[0]
    statements = [
        # Even a mistaken grant elsewhere cannot let its sessions write.
        sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(name),
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), name),
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(name),
        sql.SQL("GRANT SELECT ON {} TO {}").format(
            sql.SQL(", ").join(map(sql.Identifier, ANALYST_RELATIONS)), name
        ),
    ]
    for statement in statements:
        conn.execute(statement)
    return exists is None
