"""Ordinals for the offset-paged tables: ``ord`` on chargebacks and payout_requests.

Chargebacks and payout requests are paged by ``offset`` under a snapshot pin, and clients
compute offsets themselves (issue 10: ``offset=99990`` must cost what ``offset=0`` costs).
``OFFSET n`` walks n index entries; instead each row carries ``ord``, a dense number per
account in ``(created_at, id)`` order (consecutive integers, possibly negative: only order
and density matter). A page is then the ordinal of the newest row at or before its upper
bound (one probe of ``(account_id, created_at, id)``) minus the offset, and a range of
``limit + 1`` ordinals on ``(account_id, ord)``.

PostgreSQL keeps ``ord`` itself, whoever writes (the sync's upserts, the API's write-back,
a manual fix):

- a BEFORE ROW trigger takes a per-(table, account) transaction advisory lock before the
  row is written (for an upsert: before its conflict check locks the old row), so writers
  of one account's rows are serialized and the renumbering never waits on a row another
  writer of the account holds;
- statement-level AFTER INSERT / UPDATE / DELETE triggers (transition tables) find, per
  account, the oldest and newest key the statement disturbed (a new row, a deleted row, a
  row whose ``created_at`` or ``id`` changed, at its old and its new place) and renumber
  one side: every row from the oldest disturbance up (keeping the numbers below), or every
  row from the newest disturbance down (keeping the numbers above), whichever is smaller by
  the ordinals. Rows appended above the newest row get max+1.., rows of a backfill below
  the oldest get min-1..: the work is the statement's rows, whatever the table's size.
  A late row in the middle renumbers the smaller side; a row whose neighbour has no
  ordinal (rows written while triggers were off) renumbers the account;
- ``(account_id, ord)`` is UNIQUE DEFERRABLE (checked at the end of each statement): a
  writer that computed from a stale view (another isolation level than READ COMMITTED)
  fails instead of storing a duplicate ordinal.

The fill numbers existing rows in batches of ``_BATCH`` rows walking
``(account_id, created_at, id)``, logging its progress; it runs in the migration's
transaction, under the lock ADD COLUMN takes, so no writer can interleave with it.

Revision ID: 0010_snapshot_ordinals
Revises: 0009_secrets_at_rest
Create Date: 2026-11-23 13:00:00
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_snapshot_ordinals"
down_revision: str | None = "0009_secrets_at_rest"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("relay.migrations")

# table -> SQL type of its id
_TABLES = {"chargebacks": "bigint", "payout_requests": "text"}
_BATCH = 50_000

_LOCK = "pg_advisory_xact_lock(hashtext('relay.ord.{table}'), hashint8({account}))"

# BEFORE ROW: the account's lock before the row is written (see the module docstring).
_LOCK_ROW = """
CREATE FUNCTION ord_{table}_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM {lock_old};
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM {lock_new};
        RETURN NEW;
    END IF;
    RETURN OLD;
END
$$"""

# Renumber one account after a statement disturbed the keys from (p_at, p_id) to
# (q_at, q_id); returns the rows given a new ordinal.
_RENUMBER = """
CREATE FUNCTION ord_{table}_renumber(acc bigint, p_at timestamptz, p_id {id_type},
                                     q_at timestamptz, q_id {id_type})
RETURNS bigint LANGUAGE plpgsql
-- Plans for these bounds, not generic ones: a generic plan may join the whole table.
SET plan_cache_mode = force_custom_plan AS $$
DECLARE
    below_found boolean;
    above_found boolean;
    below bigint;  -- ordinal of the newest row under the disturbed range
    above bigint;  -- ordinal of the oldest row over it
    lo bigint;
    hi bigint;
    changed bigint;
BEGIN
    PERFORM {lock};
    SELECT ord INTO below FROM {table}
    WHERE account_id = acc AND (created_at, id) < (p_at, p_id)
    ORDER BY created_at DESC, id DESC LIMIT 1;
    below_found := FOUND;
    SELECT ord INTO above FROM {table}
    WHERE account_id = acc AND (created_at, id) > (q_at, q_id)
    ORDER BY created_at, id LIMIT 1;
    above_found := FOUND;
    SELECT min(ord), max(ord) INTO lo, hi FROM {table} WHERE account_id = acc;

    IF (below_found AND below IS NULL) OR (above_found AND above IS NULL)
       OR NOT (below_found OR above_found) THEN
        -- Nothing numbered to keep (or a neighbour without an ordinal): the whole account.
        UPDATE {table} t SET ord = r.n
        FROM (SELECT id, coalesce(lo, 1) - 1 + row_number() OVER (ORDER BY created_at, id) AS n
              FROM {table} WHERE account_id = acc) r
        WHERE t.account_id = acc AND t.id = r.id AND t.ord IS DISTINCT FROM r.n;
    ELSIF below_found AND (NOT above_found OR hi - below <= above - lo) THEN
        -- Keep the rows under the range, number the rest upwards.
        UPDATE {table} t SET ord = r.n
        FROM (SELECT id, below + row_number() OVER (ORDER BY created_at, id) AS n
              FROM {table} WHERE account_id = acc AND (created_at, id) >= (p_at, p_id)) r
        WHERE t.account_id = acc AND (t.created_at, t.id) >= (p_at, p_id)
          AND t.id = r.id AND t.ord IS DISTINCT FROM r.n;
    ELSE
        -- Keep the rows over the range, number the rest downwards.
        UPDATE {table} t SET ord = r.n
        FROM (SELECT id, above - row_number() OVER (ORDER BY created_at DESC, id DESC) AS n
              FROM {table} WHERE account_id = acc AND (created_at, id) <= (q_at, q_id)) r
        WHERE t.account_id = acc AND (t.created_at, t.id) <= (q_at, q_id)
          AND t.id = r.id AND t.ord IS DISTINCT FROM r.n;
    END IF;
    -- (The range on t too: whatever the statistics say, the join then reads the range on
    -- both sides, never the account's other rows.)
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$$"""

# Statement level: per account (in account order), the disturbed key range.
_AFTER = """
CREATE FUNCTION ord_{table}_{op}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN
        WITH c AS ({changes})
        SELECT lo.account_id, lo.created_at AS p_at, lo.id AS p_id, hi.created_at AS q_at, hi.id AS q_id
        FROM (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at, id) lo
        JOIN (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at DESC, id DESC) hi USING (account_id)
        ORDER BY lo.account_id
    LOOP
        PERFORM ord_{table}_renumber(r.account_id, r.p_at, r.p_id, r.q_at, r.q_id);
    END LOOP;
    RETURN NULL;
END
$$"""

_KEYS = "SELECT account_id, created_at, id FROM {rows}"
_CHANGES = {
    "insert": _KEYS.format(rows="new_rows"),
    "delete": _KEYS.format(rows="old_rows"),
    # A row whose (account_id, created_at, id) is unchanged disturbs nothing: that leaves
    # out payload-only updates and the renumbering's own updates.
    "update": (f"({_KEYS.format(rows='new_rows')} EXCEPT ALL {_KEYS.format(rows='old_rows')}) UNION ALL "
               f"({_KEYS.format(rows='old_rows')} EXCEPT ALL {_KEYS.format(rows='new_rows')})"),
}
_REFERENCING = {
    "insert": "REFERENCING NEW TABLE AS new_rows",
    "delete": "REFERENCING OLD TABLE AS old_rows",
    "update": "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
}


def _functions(table: str) -> list[tuple[str, str]]:
    """(signature for DROP FUNCTION, CREATE FUNCTION statement) of one table."""
    id_type = _TABLES[table]
    made = [
        (f"ord_{table}_lock()", _LOCK_ROW.format(
            table=table,
            lock_old=_LOCK.format(table=table, account="OLD.account_id"),
            lock_new=_LOCK.format(table=table, account="NEW.account_id"))),
        (f"ord_{table}_renumber(bigint, timestamptz, {id_type}, timestamptz, {id_type})",
         _RENUMBER.format(table=table, id_type=id_type, lock=_LOCK.format(table=table, account="acc"))),
    ]
    for name, changes in _CHANGES.items():
        made.append((f"ord_{table}_{name}()", _AFTER.format(table=table, op=name, changes=changes)))
    return made


def _triggers(table: str) -> list[tuple[str, str]]:
    """(trigger name, the rest of CREATE TRIGGER after its name) of one table."""
    made = [
        # Only a row whose key moves needs the lock on UPDATE: payload-only updates skip it.
        (f"ord_{table}_lock_row", f"BEFORE INSERT OR DELETE ON {table} FOR EACH ROW "
                                  f"EXECUTE FUNCTION ord_{table}_lock()"),
        (f"ord_{table}_lock_moved_row", f"BEFORE UPDATE ON {table} FOR EACH ROW "
                                        "WHEN ((OLD.account_id, OLD.created_at, OLD.id) "
                                        "IS DISTINCT FROM (NEW.account_id, NEW.created_at, NEW.id)) "
                                        f"EXECUTE FUNCTION ord_{table}_lock()"),
    ]
    for name, referencing in _REFERENCING.items():
        made.append((f"ord_{table}_after_{name}", f"AFTER {name.upper()} ON {table} {referencing} "
                                                  f"FOR EACH STATEMENT EXECUTE FUNCTION ord_{table}_{name}()"))
    return made


_FILL_FIRST = "TRUE"
_FILL_NEXT = "(account_id, created_at, id) > (:account_id, :created_at, :id)"
_FILL = """
WITH chunk AS (
    SELECT account_id, created_at, id FROM {table}
    WHERE {after}
    ORDER BY account_id, created_at, id LIMIT :batch
), numbered AS (
    SELECT account_id, id,
           row_number() OVER (PARTITION BY account_id ORDER BY created_at, id)
           + CASE WHEN account_id = :account_id THEN :carry ELSE 0 END AS n
    FROM chunk
), updated AS (
    UPDATE {table} t SET ord = numbered.n FROM numbered
    WHERE t.account_id = numbered.account_id AND t.id = numbered.id
    RETURNING t.account_id, t.created_at, t.id, t.ord
)
SELECT account_id, created_at, id, ord, count(*) OVER () FROM updated
ORDER BY account_id DESC, created_at DESC, id DESC LIMIT 1
"""


def _fill(table: str) -> None:
    """Number every stored row from 1 per account, a batch at a time, with progress."""
    conn = op.get_bind()
    total = conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
    done = 0
    params: dict = {"account_id": None, "created_at": None, "id": None, "carry": 0, "batch": _BATCH}
    after = _FILL_FIRST
    while done < total:
        last = conn.execute(sa.text(_FILL.format(table=table, after=after)), params).one_or_none()
        if last is None:
            break
        account_id, created_at, id_, ord_, rows = last
        params |= {"account_id": account_id, "created_at": created_at, "id": id_, "carry": ord_}
        after = _FILL_NEXT
        done += rows
        log.info("ord: %s %d/%d rows numbered", table, done, total)


def upgrade() -> None:
    for table in _TABLES:
        op.add_column(table, sa.Column("ord", sa.BigInteger(), nullable=True))
        _fill(table)
        op.create_unique_constraint(op.f(f"uq_{table}_account_id_ord"), table, ["account_id", "ord"],
                                    deferrable=True, initially="IMMEDIATE")
        for _, create in _functions(table):
            op.execute(create)
        for name, rest in _triggers(table):
            op.execute(f"CREATE TRIGGER {name} {rest}")


def downgrade() -> None:
    for table in _TABLES:
        for name, _ in _triggers(table):
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        for signature, _ in _functions(table):
            op.execute(f"DROP FUNCTION IF EXISTS {signature}")
        op.drop_constraint(op.f(f"uq_{table}_account_id_ord"), table, type_="unique")
        op.drop_column(table, "ord")
