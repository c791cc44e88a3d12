"""Pages of the posts feed's value orders (favorites, tips), from the store.

A value order sorts by (value, ``posted_at_precise``, id); its cursor, the tailMarker, is a
``postedAtPrecise`` alone and names the last post seen. Usually one post has that value.
When several share it the name is ambiguous, and no choice among them is right for every
page: resuming after the last of them in the order skips the posts between, resuming after
the first repeats them and can loop. So a page ends only on a post that is the **first of
its postedAtPrecise in the order** (among the posts the filters select), and the cursor
resumes after the first post of its value: exact (issue 17, docs/api-decisions.md).

Without shared values every post qualifies and pages are ``limit`` long. With them a page
may be shorter, or longer when none of its first ``limit`` posts qualifies: it runs on to
the next post that does, or to the end of the feed.
"""

from __future__ import annotations

from decimal import Decimal

from psycopg import AsyncConnection, sql

from app.params import bad_parameter

#: Whether a post ``p`` is the first of its postedAtPrecise in the order among the posts the
#: filters select: no such ``q`` comes before it (the filters' bare column names resolve to
#: ``q`` inside the subquery).
_OPENS = """NOT EXISTS (
    SELECT 1 FROM posts AS q
    WHERE q.account_id = p.account_id AND q.posted_at_precise = p.posted_at_precise
      AND {filters} AND {p_key} {after} {q_key}
)"""

_PAGE = """SELECT p.payload::text, p.payload->>'postedAtPrecise', p.posted_at_precise, {opens}
FROM posts AS p WHERE {where} ORDER BY {order}{limit}"""

_NAMED = """SELECT {key} FROM posts WHERE account_id = {account} AND posted_at_precise = {value}
ORDER BY coalesce({filters}, false) DESC, {order} LIMIT 1"""


class ValueOrder:
    """One value order: its key columns (without the id) and direction."""

    def __init__(self, columns: tuple[str, ...], descending: bool) -> None:
        self.key = (*columns, "id")
        self.descending = descending

    def row(self, alias: str | None = None) -> sql.Composable:
        parts = (sql.Identifier(*([alias] if alias else []), c) for c in self.key)
        return sql.SQL("({})").format(sql.SQL(", ").join(parts))

    def order_by(self) -> sql.Composable:
        direction = sql.SQL(" DESC" if self.descending else " ASC")
        return sql.SQL(", ").join(sql.Composed([sql.Identifier(c), direction]) for c in self.key)

    def after(self) -> sql.SQL:
        """The comparison of "comes after in the order"."""
        return sql.SQL("<" if self.descending else ">")


async def _resume_after(
    conn: AsyncConnection, order: ValueOrder, account_id: int, filters: sql.Composable, value: Decimal, name: str
) -> sql.Composable:
    """The posts after the first post of ``value`` in the order (one the filters select,
    when there is one); a value no stored post has is a 400 naming the cursor."""
    statement = sql.SQL(_NAMED).format(
        key=sql.SQL(", ").join(map(sql.Identifier, order.key)),
        account=sql.Literal(account_id),
        value=sql.Literal(value),
        filters=filters,
        order=order.order_by(),
    )
    named = await (await conn.execute(statement)).fetchone()
    if named is None:
        raise bad_parameter(name, "names no post (a value order needs a tailMarker)")
    return sql.SQL("{} {} ({})").format(order.row(), order.after(), sql.SQL(", ").join(map(sql.Literal, named)))


async def value_order_page(
    conn: AsyncConnection,
    order: ValueOrder,
    account_id: int,
    filters: list[sql.Composable],
    cursor: Decimal | None,
    limit: int,
    cursor_name: str,
) -> tuple[list[tuple[str, str, Decimal, bool]], bool]:
    """The page's rows (payload, postedAtPrecise, posted_at_precise, opens) and whether
    more follow, ending on a post that opens its value (see the module)."""
    matching = sql.SQL(" AND ").join(filters)
    where = [sql.SQL("account_id = {}").format(sql.Literal(account_id)), *filters]
    if cursor is not None:
        where.append(await _resume_after(conn, order, account_id, matching, cursor, cursor_name))
    opens = sql.SQL(_OPENS).format(filters=matching, p_key=order.row("p"), after=order.after(), q_key=order.row("q"))

    async def read(count: int | None) -> list:
        statement = sql.SQL(_PAGE).format(
            opens=opens,
            where=sql.SQL(" AND ").join(where),
            order=order.order_by(),
            limit=sql.SQL("") if count is None else sql.SQL(" LIMIT {}").format(sql.Literal(count)),
        )
        return await (await conn.execute(statement)).fetchall()

    found = await read(limit + 1)
    if len(found) <= limit:
        return found, False
    for end in range(limit - 1, -1, -1):
        if found[end][3]:
            return found[: end + 1], True
    # None of the first ``limit`` posts opens its value: run on to the next one that does.
    rest = await read(None)
    for end in range(limit, len(rest)):
        if rest[end][3]:
            return rest[: end + 1], end + 1 < len(rest)
    return rest, False
