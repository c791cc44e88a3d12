"""Change events (the outbox), webhook endpoints and their delivery log, maintenance records;
the permissions api_events_list and api_exports_read.

Events are written by triggers, in the statement that changes the rows:

- statement-level AFTER INSERT / AFTER UPDATE triggers on earnings, chargebacks,
  payout_requests and posts (transition tables: one INSERT ... SELECT per statement, not a
  call per row), so every writer -- the sync's page statement, a reconcile, the API's
  write-back -- writes a row's event with the row, and a rolled-back page takes its
  events with it;
- an insert is history, not an event, when a backfill wrote it, when the (account,
  resource) has no successful incremental run yet (its first sync), or when the row is
  older than the resource's coverage start;
- an update is an event when the compared fields changed (earnings: status and amounts;
  payout requests: state) once the first sync is done;
- sync_state: last_error turning into a rejected credential writes one
  account.credentials_rejected per account until the account syncs successfully again;
- sync_tasks: the last pending whole-history backfill (backfill_since 1970-01-01) of an
  account clearing writes sync.backfill_completed once per account.

Revision ID: 0006_events_webhooks
Revises: 0005_gate_hot_path
Create Date: 2026-11-23 06:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006_events_webhooks"
down_revision: str | None = "0005_gate_hot_path"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copy of what app.permissions adds in this revision: permission -> (description, roles).
NEW_PERMISSIONS = {
    "api_events_list": ("GET /v1/events", ("admin", "reader")),
    "api_exports_read": ("GET /v1/{account_id}/exports/{resource}", ("admin", "reader", "analytics")),
}

# table -> (time column, key columns, fields whose change is an `.updated` event or None)
_TABLES = {
    "earnings": ("created_at", ("account_id", "id"),
                 ("status", "amount", "net", "fee", "vat_amount", "tax_amount", "media_tax_amount")),
    "chargebacks": ("created_at", ("account_id", "id"), None),
    "payout_requests": ("created_at", ("account_id", "id"), ("state",)),
    "posts": ("posted_at", ("account_id", "id"), None),
}

_SYNCED_ONCE = """EXISTS (SELECT 1 FROM sync_runs i WHERE i.account_id = n.account_id
              AND i.resource = '{table}' AND i.kind = 'incremental' AND i.status = 'succeeded')"""

_CREATED = """
    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT '{table}.created', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN accounts a ON a.id = n.account_id
    JOIN sync_state s ON s.account_id = n.account_id AND s.resource = '{table}'
    LEFT JOIN sync_runs r ON r.id = n.sync_run_id
    WHERE n.{time} >= s.coverage_start
      AND r.kind IS DISTINCT FROM 'backfill'
      AND {synced_once}
    ORDER BY n.{time}, n.id;
"""

_UPDATED = """
    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT '{table}.updated', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN old_rows o USING ({key})
    JOIN accounts a ON a.id = n.account_id
    WHERE ({old}) IS DISTINCT FROM ({new})
      AND {synced_once}
    ORDER BY n.{time}, n.id;
"""

_CREDENTIALS_REJECTED = """
    PERFORM pg_advisory_xact_lock(hashtext('relay.events.credentials'), NEW.account_id::int);
    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'account.credentials_rejected', a.organization_id, a.id,
           jsonb_build_object('account_id', a.id, 'resource', NEW.resource, 'error', NEW.last_error)
    FROM accounts a
    WHERE a.id = NEW.account_id
      AND NOT EXISTS (
          SELECT 1 FROM events e
          WHERE e.organization_id = a.organization_id AND e.account_id = a.id
            AND e.type = 'account.credentials_rejected'
            AND e.occurred_at > coalesce(
                (SELECT max(last_success_at) FROM sync_state WHERE account_id = a.id), '-infinity'));
"""

_BACKFILL_COMPLETED = """
    PERFORM pg_advisory_xact_lock(hashtext('relay.events.backfill'), NEW.account_id::int);
    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'sync.backfill_completed', a.organization_id, a.id,
           jsonb_build_object('account_id', a.id,
                              'resources', (SELECT jsonb_agg(resource ORDER BY resource)
                                            FROM sync_tasks WHERE account_id = a.id))
    FROM accounts a
    WHERE a.id = NEW.account_id
      AND NOT EXISTS (SELECT 1 FROM sync_tasks t WHERE t.account_id = a.id
                      AND t.backfill_since <= 'epoch'::timestamptz)
      AND NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.organization_id = a.organization_id AND e.account_id = a.id
                        AND e.type = 'sync.backfill_completed');
"""


def _functions() -> dict[str, str]:
    bodies = {}
    for table, (time, key, compared) in _TABLES.items():
        synced_once = _SYNCED_ONCE.format(table=table)
        bodies[f"events_{table}_created"] = _CREATED.format(table=table, time=time, synced_once=synced_once)
        if compared:
            bodies[f"events_{table}_updated"] = _UPDATED.format(
                table=table, time=time, key=", ".join(key), synced_once=synced_once,
                old=", ".join(f"o.{c}" for c in compared), new=", ".join(f"n.{c}" for c in compared),
            )
    bodies["events_credentials_rejected"] = _CREDENTIALS_REJECTED
    bodies["events_backfill_completed"] = _BACKFILL_COMPLETED
    return bodies


def _triggers() -> list[tuple[str, str, str]]:
    """(trigger name, table, the rest of CREATE TRIGGER after the table name)."""
    triggers = []
    for table, (_, _, compared) in _TABLES.items():
        triggers.append((f"events_on_{table}_insert", table,
                         f"AFTER INSERT ON {table} REFERENCING NEW TABLE AS new_rows "
                         f"FOR EACH STATEMENT EXECUTE FUNCTION events_{table}_created()"))
        if compared:
            triggers.append((f"events_on_{table}_update", table,
                             f"AFTER UPDATE ON {table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows "
                             f"FOR EACH STATEMENT EXECUTE FUNCTION events_{table}_updated()"))
    triggers.append(("events_on_credentials_rejected", "sync_state",
                     "AFTER UPDATE OF last_error ON sync_state FOR EACH ROW "
                     "WHEN (NEW.last_error LIKE 'upstream_credentials_rejected%' "
                     "AND OLD.last_error IS DISTINCT FROM NEW.last_error) "
                     "EXECUTE FUNCTION events_credentials_rejected()"))
    triggers.append(("events_on_backfill_completed", "sync_tasks",
                     "AFTER UPDATE OF backfill_since ON sync_tasks FOR EACH ROW "
                     "WHEN (OLD.backfill_since <= 'epoch'::timestamptz AND NEW.backfill_since IS NULL) "
                     "EXECUTE FUNCTION events_backfill_completed()"))
    return triggers


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("tx", sa.BigInteger(), server_default=sa.text("(pg_current_xact_id()::text)::bigint"), nullable=False),
        sa.Column("event_id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("organization_id", sa.BigInteger(), nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=True),
        sa.Column("occurred_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("payload", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("event_id", name=op.f("uq_events_event_id")),
    )
    op.create_index(op.f("ix_events_organization_id_tx_id"), "events", ["organization_id", "tx", "id"])
    op.create_index(op.f("ix_events_occurred_at"), "events", ["occurred_at"])
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("organization_id", sa.BigInteger(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("event_types", postgresql.ARRAY(sa.Text()), nullable=True),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), server_default=sa.text("'active'"), nullable=False),
        sa.Column("disabled_reason", sa.Text(), nullable=True),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cursor_tx", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("cursor_id", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("locked_by", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.CheckConstraint("status IN ('active', 'disabled')", name=op.f("ck_webhook_endpoints_known_status")),
        sa.ForeignKeyConstraint(["organization_id"], ["organizations.id"],
                                name=op.f("fk_webhook_endpoints_organization_id_organizations"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_endpoints")),
    )
    op.create_index(op.f("ix_webhook_endpoints_organization_id"), "webhook_endpoints", ["organization_id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("endpoint_id", sa.BigInteger(), nullable=False),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("delivered", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_endpoints.id"],
                                name=op.f("fk_webhook_deliveries_endpoint_id_webhook_endpoints"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
    )
    op.create_index(op.f("ix_webhook_deliveries_endpoint_id_created_at"), "webhook_deliveries", ["endpoint_id", "created_at"])
    op.create_index(op.f("ix_webhook_deliveries_created_at"), "webhook_deliveries", ["created_at"])
    op.create_table(
        "maintenance_runs",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("job", sa.Text(), nullable=False),
        sa.Column("worker", sa.Text(), nullable=True),
        sa.Column("ran_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("deleted", sa.BigInteger(), nullable=False),
        sa.Column("details", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_maintenance_runs")),
    )
    for name, body in _functions().items():
        op.execute(f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n{body}\nRETURN NULL;\nEND\n$$")
    for name, _table, rest in _triggers():
        op.execute(f"CREATE TRIGGER {name} {rest}")
    _seed_permissions()


def _seed_permissions() -> None:
    permissions = sa.table("permissions", sa.column("name"), sa.column("description"))
    grants = sa.table("role_permissions", sa.column("role"), sa.column("permission"))
    op.bulk_insert(permissions, [{"name": n, "description": d} for n, (d, _) in NEW_PERMISSIONS.items()])
    op.bulk_insert(grants, [{"role": r, "permission": n} for n, (_, roles) in NEW_PERMISSIONS.items() for r in roles])


def downgrade() -> None:
    names = ", ".join(f"'{n}'" for n in NEW_PERMISSIONS)
    op.execute(f"DELETE FROM permissions WHERE name IN ({names})")
    for name, table, _ in _triggers():
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
    for name in _functions():
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    op.drop_table("maintenance_runs")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")
    op.drop_table("events")
