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

The policies read one table, ``analyst_scopes`` (migration 0023): each role's accounts,
copied from ``analyst_roles`` and ``accounts`` by ``refresh_analyst_scopes()``. On a Citus
cluster the policies run on the workers, beside the shards, so that table is declared
``info=on_every_node()``: a reference table there (a copy on every node), a plain table on
one PostgreSQL. ``reference_tables`` lists the tables so declared.
"""

from __future__ import annotations

from sqlalchemy import MetaData, Table

#: The key of ``Table.info`` holding a per-account table's declaration.
PER_ACCOUNT = "per_account"

#: The policy's name on every per-account table.
POLICY = "analyst_accounts"

#: The key of ``Table.info`` marking a table every node of a Citus cluster holds in full.
ON_EVERY_NODE = "on_every_node"

# Both functions run once per query, when it is planned, not once per row: they take no
# argument and are declared IMMUTABLE, so the planner folds them into constants (the policy
# then reads ``account_id = ANY ('{...}'::bigint[])``). They answer for current_user (after
# SET ROLE, the role whose rights apply). Citus refuses subqueries in a distributed table's
# policy, so the InitPlans of migration 0015 could not stay (migration 0023 replaced them).
_USING = "public.current_analyst_sees_all() OR {column} = ANY (public.current_analyst_account_ids())"


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


def on_every_node() -> dict:
    """``Table.info`` of a small table the policies read: on a Citus cluster a reference
    table (a full copy on every node, written with two-phase commit), else a plain table."""
    return {ON_EVERY_NODE: True}


def reference_tables(metadata: MetaData) -> list[Table]:
    """Every table declared ``on_every_node()``: Citus's ``create_reference_table`` for each."""
    return [t for t in metadata.sorted_tables if t.info.get(ON_EVERY_NODE)]


def visible_to_analysts(metadata: MetaData) -> list[Table]:
    """The per-account tables analysts read (row-level security, ``relay db grant-readonly``)."""
    return [t for t in per_account_tables(metadata) if t.info[PER_ACCOUNT]["analysts"]]


def account_column(table: Table) -> str:
    return table.info[PER_ACCOUNT]["column"]


def distribution_column(table: Table) -> str | None:
    """The column ``table`` is distributed by on a Citus cluster (docs/scaling.md, layout B):
    a per-account table's account column, every one co-located with the others; None for
    the rest: the tables declared ``on_every_node()`` become reference tables, the others
    stay plain tables on the coordinator."""
    return account_column(table) if PER_ACCOUNT in table.info else None


def analyst_columns(table: Table) -> tuple[str, ...] | None:
    return table.info[PER_ACCOUNT]["analyst_columns"]


def row_security_statements(table: str, column: str = "account_id") -> list[str]:
    """What a migration runs for a new per-account table (the policy as migration 0023 left
    every table's; migrations keep a frozen copy of the form they wrote)."""
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY {POLICY} ON {table} FOR SELECT TO PUBLIC USING ({_USING.format(column=column)})",
    ]


def drop_row_security_statements(table: str) -> list[str]:
    return [
        f"DROP POLICY IF EXISTS {POLICY} ON {table}",
        f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY",
    ]
