"""Rebuild what the writers keep (rollups and ordinals) from an account's stored rows.

The writers keep ``earnings_daily``, ``posts_counters`` and the ordinals exact in the
statements that write the rows (``app/store/upkeep.py``). A statement run by hand that
changes synced rows (a manual fix, a delete) bypasses them; ``relay db recount`` then
rebuilds them per account, under the writers' locks, from the rows as they are. Events are
not replayed: a change by hand is not a change the upstream reported.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import psycopg

from app.db.declaration import Rollup, rollups_of
from app.db.metadata import metadata
from app.store.mapping import TABLES

logger = logging.getLogger("relay.recount")


def rebuild_sql(name: str, rollup: Rollup) -> tuple[str, str]:
    """The statements that empty one account's groups of rollup ``name`` and sum them anew."""
    columns = [*rollup.group, *rollup.sums]
    selected = [*rollup.group.values(), *(f"sum({e})" for e in rollup.sums.values())]
    group = ", ".join(str(n) for n in range(1, len(rollup.group) + 1))
    return (f"DELETE FROM {name} WHERE account_id = %(account_id)s",
            f"INSERT INTO {name} ({', '.join(columns)}) SELECT {', '.join(selected)} "
            f"FROM {rollup.source} r WHERE r.account_id = %(account_id)s GROUP BY {group}")


# With no disturbed range given, the renumbering numbers the whole account (migration 0010).
_WHOLE_ACCOUNT = "SELECT ord_{table}_renumber(%(account_id)s, '-infinity', NULL, 'infinity', NULL)"


def recount(conn: psycopg.Connection, account_id: int) -> None:
    """Rebuild the account's rollups and ordinals, in one transaction."""
    params = {"account_id": account_id}
    with conn.transaction():
        for table in TABLES.values():
            conn.execute(table.lock_sql(), params)
        for table in TABLES.values():
            for name, rollup in rollups_of(metadata, table.name):
                for statement in rebuild_sql(name, rollup):
                    conn.execute(statement, params)
            if table.upkeep.ordinals:
                conn.execute(_WHOLE_ACCOUNT.format(table=table.name), params)


def recount_accounts(conn: psycopg.Connection, account_ids: Iterable[int] | None = None) -> int:
    """Recount the given accounts (None: every account), logging progress; returns how many."""
    if account_ids is None:
        account_ids = [a for (a,) in conn.execute("SELECT id FROM accounts ORDER BY id")]
    ids = list(account_ids)
    for done, account_id in enumerate(ids, 1):
        recount(conn, account_id)
        logger.info("recount_account", extra={"account_id": account_id, "done": done, "total": len(ids)})
    return len(ids)
