"""Account states the gate and the events follow: disconnect reaches every API process, and a
rejected credential is one event per rejection.

- ``accounts_gate_changed`` also fires on ``UPDATE OF status``: ``relay accounts
  disconnect`` (status ``paused``) and ``reconnect`` must reach the gates that hold the
  account (``app.gate.listener``), so a disconnected account is refused on the next request.
- ``account.credentials_rejected`` is written when an account's status turns into
  ``credentials_rejected`` (the sync sets it on the upstream's first rejection; only
  ``relay accounts connect|reconnect`` sets it back to ``active``): once per rejection. It
  was written when a resource's ``last_error`` turned into a rejection unless an event
  newer than the account's last success existed; a head check that made no request (the
  tracking-link daily stats) still recorded a success, so the next rejection sent it again.

Revision ID: 0019_account_states
Revises: 0018_schedules
Create Date: 2026-11-26 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0019_account_states"
down_revision: str | None = "0018_schedules"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_GATE_EVENTS = "INSERT OR UPDATE OF {columns} OR DELETE OR TRUNCATE"

# The payload names the resource whose sync met the rejection and the error it recorded
# (written in the same transaction, just before the status: sync.state.record_failure).
_ACCOUNT_REJECTED = """
CREATE FUNCTION events_account_credentials_rejected() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'account.credentials_rejected', NEW.organization_id, NEW.id,
           jsonb_build_object('account_id', NEW.id, 'resource', s.resource, 'error', s.last_error)
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (
        SELECT resource, last_error FROM sync_state
        WHERE account_id = NEW.id AND last_error LIKE 'upstream_credentials_rejected%'
        ORDER BY last_error_at DESC NULLS LAST LIMIT 1
    ) s ON true;
    RETURN NULL;
END
$$
"""

_OLD_REJECTED = """
CREATE FUNCTION events_credentials_rejected() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
RETURN NULL;
END
$$
"""


def _gate_trigger(columns: str) -> None:
    op.execute("DROP TRIGGER accounts_gate_changed ON accounts")
    op.execute(
        f"CREATE TRIGGER accounts_gate_changed AFTER {_GATE_EVENTS.format(columns=columns)} ON accounts "
        "FOR EACH STATEMENT EXECUTE FUNCTION relay_gate_changed()"
    )


def upgrade() -> None:
    _gate_trigger("organization_id, upstream_token, status")
    op.execute("DROP TRIGGER events_on_credentials_rejected ON sync_state")
    op.execute("DROP FUNCTION events_credentials_rejected()")
    op.execute(_ACCOUNT_REJECTED)
    op.execute(
        "CREATE TRIGGER events_on_account_credentials_rejected AFTER UPDATE OF status ON accounts "
        "FOR EACH ROW WHEN (NEW.status = 'credentials_rejected' AND OLD.status IS DISTINCT FROM NEW.status) "
        "EXECUTE FUNCTION events_account_credentials_rejected()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER events_on_account_credentials_rejected ON accounts")
    op.execute("DROP FUNCTION events_account_credentials_rejected()")
    op.execute(_OLD_REJECTED)
    op.execute(
        "CREATE TRIGGER events_on_credentials_rejected AFTER UPDATE OF last_error ON sync_state FOR EACH ROW "
        "WHEN (NEW.last_error LIKE 'upstream_credentials_rejected%' "
        "AND OLD.last_error IS DISTINCT FROM NEW.last_error) "
        "EXECUTE FUNCTION events_credentials_rejected()"
    )
    _gate_trigger("organization_id, upstream_token")
