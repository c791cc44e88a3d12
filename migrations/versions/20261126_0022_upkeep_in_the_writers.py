"""The synced tables' statement triggers go: the writers keep rollups, events and ordinals.

Citus runs no statement trigger with transition tables on a distributed table, and refuses
to distribute a table that has triggers at all (docs/scaling.md, "What the survey found",
items 1, 10 and 11). What the triggers kept -- ``earnings_daily`` and ``posts_counters``
(0004, 0011), the change events of new and changed rows (0006, 0021) and the ordinals'
lock and renumbering calls (0010, 0020) -- the writers now keep inside the statement that
writes the rows (``app/store/upkeep.py``), with the same results; the ordinals'
renumbering function stays, called by the writers, and its updates name the account: on
Citus an update that reaches rows by ``ctid`` must be one shard's statement.

Nothing is recomputed: the triggers kept everything exact up to this revision, and the
writers take over from the next write. The downgrade restores the triggers and their
functions as this revision found them (``migrations/frozen/0022_synced_table_triggers.sql``).

Revision ID: 0022_upkeep_in_the_writers
Revises: 0021_sync_runs_account_key
Create Date: 2026-11-26 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from alembic import op

revision: str = "0022_upkeep_in_the_writers"
down_revision: str | None = "0021_sync_runs_account_key"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_FROZEN = Path(__file__).resolve().parents[1] / "frozen" / "0022_synced_table_triggers.sql"

#: The synced tables whose triggers go; every non-internal trigger on them is one of these.
_TABLES = ("earnings", "chargebacks", "payout_requests", "posts")

#: Trigger functions that only those triggers call (the renumbering function stays).
_FUNCTIONS = (
    "earnings_daily_added", "earnings_daily_changed", "earnings_daily_removed", "earnings_daily_truncated",
    "posts_counters_added", "posts_counters_changed", "posts_counters_removed", "posts_counters_truncated",
    "events_earnings_created", "events_earnings_updated", "events_chargebacks_created",
    "events_payout_requests_created", "events_payout_requests_updated", "events_posts_created",
    *(f"ord_{table}_{op}" for table in ("chargebacks", "payout_requests")
      for op in ("lock", "insert", "update", "delete")),
)


#: The renumbering's range updates (migration 0020), before and after.
_BY_CTID = "WHERE t.ctid = r.tid"
_BY_ACCOUNT_AND_CTID = "WHERE t.account_id = acc AND t.ctid = r.tid"


def _rewrite_renumbering(old: str, new: str) -> None:
    for table in ("chargebacks", "payout_requests"):
        definition = op.get_bind().exec_driver_sql(
            f"SELECT pg_get_functiondef('ord_{table}_renumber'::regproc)").scalar_one()
        assert definition.count(old) == 3, f"ord_{table}_renumber: {old!r} not in each range update"
        op.execute(definition.replace(old, new))


def upgrade() -> None:
    _rewrite_renumbering(_BY_CTID, _BY_ACCOUNT_AND_CTID)
    triggers = op.get_bind().exec_driver_sql(
        "SELECT tgname, tgrelid::regclass::text FROM pg_trigger "
        "WHERE NOT tgisinternal AND tgrelid = ANY (%(tables)s::regclass[])",
        {"tables": list(_TABLES)},
    ).fetchall()
    for name, table in triggers:
        op.execute(f"DROP TRIGGER {name} ON {table}")
    for function in _FUNCTIONS:
        op.execute(f"DROP FUNCTION {function}()")


def downgrade() -> None:
    op.execute(_FROZEN.read_text())
    _rewrite_renumbering(_BY_ACCOUNT_AND_CTID, _BY_CTID)
