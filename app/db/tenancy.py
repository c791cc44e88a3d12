"""Tables whose rows each belong to one account, and the row-level security that follows.

A per-account table declares it once, in its model (``info=per_account()``; every synced
table gets it from ``SyncedRow``). That one declaration says:

- which column names the account: analysts' roles see only the rows of the accounts of
  their organization (the policy below; migration 0015), and it is the column the table
  will be distributed by on Citus (docs/scaling.md);
- which columns analysts may read (default: all; ``relay db grant-readonly`` grants them),
  or none (``analysts=False``: the sync's bookkeeping, ``sync_runs`` and ``upstream_budget``).

Row-level security applies only to roles that neither own the tables nor are superusers:
the API, the workers and migrations connect as the owner, so their queries and plans are
untouched. Every other role sees the rows of the accounts that ``analyst_account_ids``
returns for it, nothing when it is no registered analyst role (fail closed).
"""

from __future__ import annotations

from sqlalchemy import MetaData, Table

#: The key of ``Table.info`` holding a per-account table's declaration.
PER_ACCOUNT = "per_account"

#: The policy's name on every per-account table.
POLICY = "analyst_accounts"

# Both functions run once per query (scalar subqueries become InitPlans), not once per row.
# current_user, not session_user: after SET ROLE it is the role whose rights apply. The cast
# makes ANY read an array (without it, ANY (SELECT ...) compares with each row of a subquery).
_USING = (
    "(SELECT public.analyst_sees_all(current_user)) "
    "OR {column} = ANY ((SELECT public.analyst_account_ids(current_user))::bigint[])"
)


def per_account(column: str = "account_id", analyst_columns: tuple[str, ...] | None = None, *,
                analysts: bool = True) -> dict:
    """``Table.info`` of a table whose rows belong to the account in ``column``;
    ``analyst_columns`` limits what analysts may read (None: every column); ``analysts``
    False: bookkeeping analysts do not read at all (no grant, no policy), distributed with
    the account's other tables all the same."""
    return {PER_ACCOUNT: {"column": column, "analyst_columns": analyst_columns, "analysts": analysts}}


def per_account_tables(metadata: MetaData) -> list[Table]:
    """Every table declared per-account, in dependency order."""
    return [t for t in metadata.sorted_tables if PER_ACCOUNT in t.info]


def visible_to_analysts(metadata: MetaData) -> list[Table]:
    """The per-account tables analysts read (row-level security, ``relay db grant-readonly``)."""
    return [t for t in per_account_tables(metadata) if t.info[PER_ACCOUNT]["analysts"]]


def account_column(table: Table) -> str:
    return table.info[PER_ACCOUNT]["column"]


def distribution_column(table: Table) -> str | None:
    """The column ``table`` is distributed by on a Citus cluster (docs/scaling.md, layout B):
    a per-account table's account column, every one co-located with the others; None for
    the rest, which stay plain tables on the coordinator."""
    return account_column(table) if PER_ACCOUNT in table.info else None


def analyst_columns(table: Table) -> tuple[str, ...] | None:
    return table.info[PER_ACCOUNT]["analyst_columns"]


def row_security_statements(table: str, column: str = "account_id") -> list[str]:
    """What a migration runs for a new per-account table (migration 0015 for the first)."""
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY {POLICY} ON {table} FOR SELECT TO PUBLIC USING ({_USING.format(column=column)})",
    ]


def drop_row_security_statements(table: str) -> list[str]:
    return [
        f"DROP POLICY IF EXISTS {POLICY} ON {table}",
        f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY",
    ]
