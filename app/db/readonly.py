"""Read-only roles for analysts: SELECT on the synced data and the analyst views, nothing else.

``relay db grant-readonly ROLE [--org ORG]`` runs :func:`grant_readonly`. It never grants
the platform tables (API key hashes, upstream credentials, metering): only what
docs/data.md documents for analysts. With an organization the role reads only the rows of
that organization's accounts, enforced by row-level security on every per-account table
(``app/db/tenancy.py``); without, every organization's. It is idempotent: run it again
after a migration adds a table or a view.

The policies read each role's accounts from ``analyst_scopes``, a copy that
:func:`refresh_analyst_scopes` brings up to date in the transaction of the change:
``grant_readonly``'s (a role moved to another organization stops reading the first one's
rows when it commits) and account connect's (the account's rows are readable by its
organization's roles when it commits).
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
from psycopg import sql
from sqlalchemy import Table

from app.db.metadata import metadata
from app.db.rows import one
from app.db.tenancy import analyst_columns, visible_to_analysts

#: The analyst views (migrations 0004 and 0015). Each is ``security_invoker``, so the
#: querying role's row-level security applies to the tables it reads.
ANALYST_VIEWS = (
    "earnings_net_per_day",
    "chargeback_rate_per_month",
    "post_performance",
    "sync_coverage",
)


def analyst_tables() -> list[Table]:
    """What analysts read besides the views: every per-account table (the synced tables,
    the rollups, the columns of ``sync_state`` behind ``sync_coverage``)."""
    return visible_to_analysts(metadata)


def analyst_relations() -> list[str]:
    return [t.name for t in analyst_tables()] + list(ANALYST_VIEWS)


@dataclass(frozen=True)
class Granted:
    created: bool
    organization_id: int | None  # None: every organization


def grant_readonly(
    conn: psycopg.Connection, role: str, *, password: str | None = None, organization_id: int | None = None
) -> Granted:
    """Create ``role`` if missing (LOGIN with ``password``, else a NOLOGIN group role),
    make its sessions read-only, grant SELECT on the analyst relations and register which
    organization it reads (``organization_id``; None: every one)."""
    name = sql.Identifier(role)
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    with conn.transaction():
        # On Citus the GRANTs on distributed tables run over parallel connections, after
        # which the transaction may not change a function (the scope refresh does): one
        # connection per worker instead. A placeholder setting on plain PostgreSQL.
        conn.execute("SET LOCAL citus.multi_shard_modify_mode = 'sequential'")
        if exists is None:
            if password is None:
                conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(name))
            else:
                conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(name, sql.Literal(password)))
        for statement in _grants(conn, name):
            conn.execute(statement)
        conn.execute(
            "INSERT INTO analyst_roles (role_name, organization_id) VALUES (%s, %s) "
            "ON CONFLICT (role_name) DO UPDATE SET organization_id = EXCLUDED.organization_id, updated_at = now()",
            (role, organization_id),
        )
        refresh_analyst_scopes(conn)
    return Granted(created=exists is None, organization_id=organization_id)


def refresh_analyst_scopes(conn: psycopg.Connection) -> bool:
    """Bring the analysts' scopes up to date with ``analyst_roles`` and ``accounts`` (true
    when they changed), in the caller's transaction: run it in the one that changed them.
    On Citus ``analyst_scopes`` is a reference table, so the transaction commits with
    two-phase commit on the workers; the coordinator's own part, where ``accounts``' NOTIFY
    trigger runs, is not prepared, so a change of ``accounts`` may be in it
    (tests/db/test_citus_row_security.py)."""
    return bool(one(conn.execute("SELECT public.refresh_analyst_scopes()").fetchone())[0])


def _grants(conn: psycopg.Connection, name: sql.Identifier) -> list[sql.Composed]:
    database = one(conn.execute("SELECT current_database()").fetchone())[0]
    whole = [t.name for t in analyst_tables() if analyst_columns(t) is None]
    return [
        # Even a mistaken grant elsewhere cannot let its sessions write.
        sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(name),
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), name),
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(name),
        sql.SQL("GRANT SELECT ON {} TO {}").format(
            sql.SQL(", ").join(map(sql.Identifier, whole + list(ANALYST_VIEWS))), name
        ),
        *(
            sql.SQL("GRANT SELECT ({}) ON {} TO {}").format(
                sql.SQL(", ").join(map(sql.Identifier, columns)), sql.Identifier(t.name), name
            )
            for t in analyst_tables()
            if (columns := analyst_columns(t)) is not None
        ),
    ]
