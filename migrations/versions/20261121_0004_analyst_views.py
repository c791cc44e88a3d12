"""Analyst views, and the daily earnings rollup the earnings chart and the views read.

- earnings_daily: rows, net and gross per (account, UTC day, type, tips source), kept exact by
  statement-level triggers on earnings (insert, update, delete, truncate; transition tables,
  so one sync page costs one GROUP BY, not one trigger call per row); filled here from the
  rows already stored;
- views for analysts (docs/data.md): earnings_net_per_day, chargeback_rate_per_month,
  post_performance. Views are not in the SQLAlchemy metadata (autogenerate ignores them);
  downgrade drops them.

Revision ID: 0004_analyst_views
Revises: 0003_gate
Create Date: 2026-11-21 23:59:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_analyst_views"
down_revision: str | None = "0003_gate"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Rows of a transition table as rollup deltas; {sign} is 1 (added) or -1 (removed).
_DELTAS = """
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, type,
           coalesce(tips_source, '') AS tips_source,
           {sign} * count(*) AS rows, {sign} * sum(net) AS net, {sign} * sum(amount) AS gross
    FROM {table} GROUP BY 1, 2, 3, 4
"""

# Sorted, so two writers touching the same days lock the rollup rows in the same order.
_APPLY = """
    INSERT INTO earnings_daily AS d (account_id, day, type, tips_source, rows, net, gross)
    SELECT account_id, day, type, tips_source, sum(rows), sum(net), sum(gross)
    FROM ({deltas}) AS changes
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, day, type, tips_source) DO UPDATE
    SET rows = d.rows + EXCLUDED.rows, net = d.net + EXCLUDED.net, gross = d.gross + EXCLUDED.gross;
"""

_FUNCTIONS = {
    "earnings_daily_added": _APPLY.format(deltas=_DELTAS.format(sign=1, table="new_rows")),
    "earnings_daily_removed": _APPLY.format(deltas=_DELTAS.format(sign=-1, table="old_rows")),
    "earnings_daily_changed": _APPLY.format(
        deltas=_DELTAS.format(sign=-1, table="old_rows")
        + " UNION ALL "
        + _DELTAS.format(sign=1, table="new_rows")
    ),
    # TRUNCATE empties earnings for every account at once: empty the rollup the same way.
    "earnings_daily_truncated": "DELETE FROM earnings_daily;",
}

_TRIGGERS = (
    ("earnings_daily_on_insert", "INSERT", "REFERENCING NEW TABLE AS new_rows", "earnings_daily_added"),
    ("earnings_daily_on_update", "UPDATE", "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows", "earnings_daily_changed"),
    ("earnings_daily_on_delete", "DELETE", "REFERENCING OLD TABLE AS old_rows", "earnings_daily_removed"),
    ("earnings_daily_on_truncate", "TRUNCATE", "", "earnings_daily_truncated"),
)

_VIEWS = {
    "earnings_net_per_day": """
        SELECT account_id, day, type, nullif(tips_source, '') AS tips_source,
               rows AS transactions, gross, net
        FROM earnings_daily
        WHERE rows <> 0
    """,
    "chargeback_rate_per_month": """
        WITH earned AS (
            SELECT account_id, date_trunc('month', day)::date AS month,
                   sum(rows) AS transactions, sum(gross) AS gross
            FROM earnings_daily GROUP BY 1, 2
        ), charged AS (
            SELECT account_id, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS month,
                   count(*) AS chargebacks, sum(amount) AS chargeback_gross
            FROM chargebacks GROUP BY 1, 2
        )
        SELECT account_id, month,
               coalesce(earned.transactions, 0) AS transactions,
               coalesce(earned.gross, 0) AS gross,
               coalesce(charged.chargebacks, 0) AS chargebacks,
               coalesce(charged.chargeback_gross, 0) AS chargeback_gross,
               round(coalesce(charged.chargebacks, 0)::numeric / nullif(earned.transactions, 0), 6)
                   AS rate_by_count,
               round(coalesce(charged.chargeback_gross, 0) / nullif(earned.gross, 0), 6)
                   AS rate_by_amount
        FROM earned FULL JOIN charged USING (account_id, month)
    """,
    "post_performance": """
        SELECT account_id, id AS post_id, posted_at, favorites_count, tips_amount,
               media_count, media_types, is_pinned, is_archived, is_private_archived, label_ids,
               left(raw_text, 140) AS text_preview,
               rank() OVER (PARTITION BY account_id ORDER BY tips_amount DESC NULLS LAST) AS tips_rank,
               rank() OVER (PARTITION BY account_id ORDER BY favorites_count DESC NULLS LAST)
                   AS favorites_rank
        FROM posts
    """,
}


def upgrade() -> None:
    op.create_table(
        "earnings_daily",
        sa.Column("account_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("tips_source", sa.Text(), server_default=sa.text("''"), nullable=False),
        sa.Column("rows", sa.BigInteger(), nullable=False),
        sa.Column("net", sa.Numeric(), nullable=False),
        sa.Column("gross", sa.Numeric(), nullable=False),
        sa.PrimaryKeyConstraint("account_id", "day", "type", "tips_source", name=op.f("pk_earnings_daily")),
    )
    for name, body in _FUNCTIONS.items():
        op.execute(
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            f"BEGIN\n{body}\nRETURN NULL;\nEND\n$$"
        )
    for name, event, referencing, function in _TRIGGERS:
        op.execute(
            f"CREATE TRIGGER {name} AFTER {event} ON earnings {referencing} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        )
    op.execute(_APPLY.format(deltas=_DELTAS.format(sign=1, table="earnings")))
    for name, body in _VIEWS.items():
        op.execute(f"CREATE VIEW {name} AS {body}")


def downgrade() -> None:
    for name in reversed(list(_VIEWS)):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    for name, _, _, _ in _TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON earnings")
    for name in _FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    op.drop_table("earnings_daily")
