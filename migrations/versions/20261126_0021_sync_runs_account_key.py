"""``sync_runs`` keyed by ``(account_id, id)``; every statement by run names the account.

Citus distributes a table only when each of its primary and unique keys holds the
distribution column (docs/scaling.md, "What the survey found", item 2), and a statement by
run id alone would then run on every shard. So the key is ``(account_id, id)``, the page
statement's and ``finish_run``'s updates name the account (``sync/state.py``), and so does
the events triggers' look-up of the run that wrote a row (migration 0006).

``sync_state`` and ``upstream_budget`` lose their foreign keys to ``accounts``: distributed
by account they cannot reference a coordinator table (item 3). Nothing deletes accounts;
their cascade was all the keys did.

Revision ID: 0021_sync_runs_account_key
Revises: 0020_ord_renumber_by_order
Create Date: 2026-11-26 11:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0021_sync_runs_account_key"
down_revision: str | None = "0020_ord_renumber_by_order"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The events triggers' functions that look up the run of a new row (migration 0006).
_CREATED = ("events_earnings_created", "events_chargebacks_created", "events_payout_requests_created",
            "events_posts_created")
_BY_ID = "sync_runs r ON r.id = n.sync_run_id"
_BY_KEY = "sync_runs r ON r.account_id = n.account_id AND r.id = n.sync_run_id"


def _rewrite(function: str, old: str, new: str) -> None:
    definition = op.get_bind().exec_driver_sql(f"SELECT pg_get_functiondef('{function}'::regproc)").scalar_one()
    assert old in definition, f"{function} does not read {old!r}"
    op.execute(definition.replace(old, new))


#: (table, foreign key) to accounts that go.
_KEYS = (("sync_state", "fk_sync_state_account_id_accounts"),
         ("upstream_budget", "fk_upstream_budget_account_id_accounts"))


def upgrade() -> None:
    for table, key in _KEYS:
        op.drop_constraint(key, table, type_="foreignkey")
    op.drop_constraint("pk_sync_runs", "sync_runs", type_="primary")
    op.create_primary_key("pk_sync_runs", "sync_runs", ["account_id", "id"])
    for function in _CREATED:
        _rewrite(function, _BY_ID, _BY_KEY)


def downgrade() -> None:
    for function in _CREATED:
        _rewrite(function, _BY_KEY, _BY_ID)
    op.drop_constraint("pk_sync_runs", "sync_runs", type_="primary")
    op.create_primary_key("pk_sync_runs", "sync_runs", ["id"])
    for table, key in _KEYS:
        op.create_foreign_key(key, table, "accounts", ["account_id"], ["id"], ondelete="CASCADE")
