"""Rewrite every stored secret of a column, in batches: encrypt clear values (migration
0009), decrypt them (its downgrade), re-encrypt under the newest key (``relay secrets rotate``).

Batches walk the primary key, so memory stays one batch whatever the table's size. Each
batch is one UPDATE that only replaces a value still equal to the one read (compare and
set): a credential changed meanwhile by a running API or admin command is left as that
writer stored it. On an autocommit connection every batch commits on its own (rotate runs
beside the API); inside a migration they share its transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg
from psycopg.types.json import Jsonb

from app.crypto.keyring import Keyring, UnreadableSecret

BATCH_ROWS = 500


@dataclass(frozen=True, slots=True)
class SecretColumn:
    table: str
    column: str
    #: What one row is, for messages ("account 42").
    noun: str


#: Every column that holds a secret (tests/crypto/test_secrets_at_rest.py checks no other holds one).
SECRET_COLUMNS = (
    SecretColumn("accounts", "upstream_token", "account"),
    SecretColumn("webhook_endpoints", "secret", "webhook endpoint"),
)


@dataclass(slots=True)
class RewriteCounts:
    table: str
    column: str
    scanned: int = 0
    rewritten: int = 0
    #: Ids of rows no key decrypts (left as they are).
    unreadable: list[int] = field(default_factory=list)

    def as_record(self) -> dict:
        return {"table": self.table, "column": self.column, "scanned": self.scanned,
                "rewritten": self.rewritten, "unreadable": self.unreadable}


def rewrite_column(
    conn: psycopg.Connection,
    target: SecretColumn,
    transform: Callable[[str], str | None],
    *,
    batch: int = BATCH_ROWS,
    progress: Callable[[RewriteCounts], None] | None = None,
) -> RewriteCounts:
    """Apply ``transform`` (the new value, or None to leave it) to every value of the column."""
    counts = RewriteCounts(target.table, target.column)
    select = f"SELECT id, {target.column} FROM {target.table} WHERE id > %s ORDER BY id LIMIT %s"
    update = (
        f"UPDATE {target.table} t SET {target.column} = c.new "
        f"FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS c(id, old, new) "
        f"WHERE t.id = c.id AND t.{target.column} = c.old"
    )
    last = 0
    while rows := conn.execute(select, (last, batch)).fetchall():
        changes: list[tuple[int, str, str]] = []
        for row_id, value in rows:
            try:
                changed = transform(value)
            except UnreadableSecret:
                counts.unreadable.append(row_id)
                continue
            if changed is not None:
                changes.append((row_id, value, changed))
        if changes:
            counts.rewritten += conn.execute(update, [list(c) for c in zip(*changes, strict=True)]).rowcount
        counts.scanned += len(rows)
        last = rows[-1][0]
        if progress is not None:
            progress(counts)
    return counts


def rotate_all(
    conn: psycopg.Connection,
    keyring: Keyring,
    *,
    worker: str,
    batch: int = BATCH_ROWS,
    progress: Callable[[RewriteCounts], None] | None = None,
) -> list[RewriteCounts]:
    """Re-encrypt every secret not yet under the newest key (``relay secrets rotate``; clear
    values are encrypted), then leave a ``maintenance_runs`` row saying what was done."""
    results = [rewrite_column(conn, target, keyring.reencrypt, batch=batch, progress=progress)
               for target in SECRET_COLUMNS]
    conn.execute(
        "INSERT INTO maintenance_runs (job, worker, deleted, details) VALUES ('secrets_rotate', %s, 0, %s)",
        (worker, Jsonb({"keys": keyring.size, "columns": [r.as_record() for r in results]})),
    )
    return results
