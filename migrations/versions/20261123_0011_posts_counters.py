"""The posts feed's counters as a rollup: ``posts_counters``, one row per account.

The feed's ``counters`` block used to be an aggregate over every stored post of the account,
unpacking each post's ``media`` array: 1-3 s per request on an account with 125,000 posts,
for a page that takes 2 ms. ``posts_counters`` holds exactly what that aggregate answered:

- ``posts``: visible posts (neither archived nor private-archived);
- ``archived``, ``private_archived``: posts in each archive (a post may be in both);
- ``photos``, ``videos``, ``audios``: media items of that type in the visible posts.

Statement-level triggers on posts (insert, update, delete, truncate; transition tables)
add the changed rows' counts with their sign, so a sync page costs one GROUP BY over its own
rows, whatever the account's size, and the rollup is exact whoever writes (the sync, a live
write-back, a manual fix). The update is ``INSERT .. ON CONFLICT DO UPDATE SET x = x + delta``:
a concurrent writer of the same account waits for the row and adds to the committed value.
An update statement whose rows changed no count (a re-read that only moved
``favorites_count``) writes nothing, so it takes no lock on the account's row.

A ``media`` that is not an array counts no items (the old aggregate failed the request on
one; a trigger must not fail the sync's write).

The fill is one INSERT .. SELECT grouped by account, after the triggers: CREATE TRIGGER
locks posts against writes until the migration commits, so no write falls between the two.

Revision ID: 0011_posts_counters
Revises: 0010_snapshot_ordinals
Create Date: 2026-11-23 14:15:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_posts_counters"
down_revision: str | None = "0010_snapshot_ordinals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTS = ("posts", "archived", "private_archived", "photos", "videos", "audios")

# Rows of a transition table (or of posts itself, for the fill) as per-account deltas;
# {sign} is 1 (added) or -1 (removed). Media are unpacked for visible rows only.
_DELTAS = """
    SELECT r.account_id,
           {sign} * sum(r.visible) AS posts,
           {sign} * sum(r.archived) AS archived,
           {sign} * sum(r.private_archived) AS private_archived,
           {sign} * sum(m.photos) AS photos,
           {sign} * sum(m.videos) AS videos,
           {sign} * sum(m.audios) AS audios
    FROM (
        SELECT account_id, payload,
               (NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false))::int AS visible,
               coalesce(is_archived, false)::int AS archived,
               coalesce(is_private_archived, false)::int AS private_archived
        FROM {table}
    ) AS r
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE item->>'type' = 'photo') AS photos,
               count(*) FILTER (WHERE item->>'type' = 'video') AS videos,
               count(*) FILTER (WHERE item->>'type' = 'audio') AS audios
        FROM jsonb_array_elements(
            CASE WHEN r.visible = 1 AND jsonb_typeof(r.payload->'media') = 'array'
                 THEN r.payload->'media' ELSE '[]'::jsonb END
        ) AS item
    ) AS m
    GROUP BY r.account_id
"""

# Sorted, so two writers touching several accounts lock their rows in the same order;
# all-zero deltas (an update that changed no count) are skipped.
_APPLY = f"""
    INSERT INTO posts_counters AS c (account_id, {", ".join(_COUNTS)})
    SELECT account_id, {", ".join(f"sum({n})" for n in _COUNTS)}
    FROM ({{deltas}}) AS changes
    GROUP BY account_id
    HAVING ({", ".join(f"sum({n})" for n in _COUNTS)}) <> ({", ".join("0" for _ in _COUNTS)})
    ORDER BY account_id
    ON CONFLICT (account_id) DO UPDATE
    SET {", ".join(f"{n} = c.{n} + EXCLUDED.{n}" for n in _COUNTS)};
"""

_FUNCTIONS = {
    "posts_counters_added": _APPLY.format(deltas=_DELTAS.format(sign=1, table="new_rows")),
    "posts_counters_removed": _APPLY.format(deltas=_DELTAS.format(sign=-1, table="old_rows")),
    "posts_counters_changed": _APPLY.format(
        deltas=_DELTAS.format(sign=-1, table="old_rows")
        + " UNION ALL "
        + _DELTAS.format(sign=1, table="new_rows")
    ),
    # TRUNCATE empties posts for every account at once: empty the rollup the same way.
    "posts_counters_truncated": "DELETE FROM posts_counters;",
}

_TRIGGERS = (
    ("posts_counters_on_insert", "INSERT", "REFERENCING NEW TABLE AS new_rows", "posts_counters_added"),
    ("posts_counters_on_update", "UPDATE", "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows", "posts_counters_changed"),
    ("posts_counters_on_delete", "DELETE", "REFERENCING OLD TABLE AS old_rows", "posts_counters_removed"),
    ("posts_counters_on_truncate", "TRUNCATE", "", "posts_counters_truncated"),
)


def upgrade() -> None:
    op.create_table(
        "posts_counters",
        sa.Column("account_id", sa.BigInteger(), autoincrement=False, nullable=False),
        *(sa.Column(name, sa.BigInteger(), nullable=False) for name in _COUNTS),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_posts_counters")),
    )
    for name, body in _FUNCTIONS.items():
        op.execute(
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            f"BEGIN\n{body}\nRETURN NULL;\nEND\n$$"
        )
    for name, event, referencing, function in _TRIGGERS:
        op.execute(
            f"CREATE TRIGGER {name} AFTER {event} ON posts {referencing} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        )
    op.execute(_APPLY.format(deltas=_DELTAS.format(sign=1, table="posts")))


def downgrade() -> None:
    for name, _, _, _ in _TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON posts")
    for name in _FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    op.drop_table("posts_counters")
