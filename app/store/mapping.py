"""The synced tables: one definition each (typed columns, key, upsert), for both writers.

The sync engine (``sync/``) and the store-served routes (which write a live answer back
into the store) both write the synced tables. If each had its own mapping, the same
upstream row could be stored two ways and the store would answer differently depending on
who wrote last. So each table is one :class:`SyncedTable` here, in ``app`` (which ``sync``
may import):

- ``columns``: each typed column as a SQL expression over ``p``, the item's JSONB payload,
  and ``%(name)s`` constants of the query that returned it (the earnings ``type`` and
  ``tips_source``, a stats row's ``link_id``). PostgreSQL computes the columns during the
  merge, so a writer does no per-row Python work;
- ``key``: the conflict key;
- :meth:`SyncedTable.upsert_sql`: the upsert from any row source. The write-back reads a
  JSON array parameter (:func:`write_items`); the sync's bulk writer reads the page it
  staged with COPY (``sync/writers.py``) and adds its run id and counters.

Unchanged rows are not rewritten (``IS DISTINCT FROM``), so ``last_synced_at`` keeps
meaning "last changed".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

_p = MappingProxyType


@dataclass(frozen=True, slots=True)
class SyncedTable:
    """One synced table: its typed columns (SQL over ``p``) and its conflict key."""

    name: str
    columns: Mapping[str, str]
    key: tuple[str, ...] = ("account_id", "id")

    def upsert_sql(self, source: str, *, run_id: bool = False) -> str:
        """``INSERT .. ON CONFLICT`` of the items ``p`` that ``source`` yields (a FROM item
        with a ``p jsonb`` column) for ``%(account_id)s``; ``run_id``: also store
        ``%(run_id)s`` as ``sync_run_id``. Rows equal to the stored ones are left alone."""
        names = ["account_id", *self.columns, "payload"]
        values = ["%(account_id)s::bigint", *self.columns.values(), "p"]
        compared = [c for c in names if c not in self.key]
        assignments = [f"{c} = excluded.{c}" for c in compared]
        if run_id:
            names.append("sync_run_id")
            values.append("%(run_id)s::bigint")
            assignments.append("sync_run_id = excluded.sync_run_id")
        key = ", ".join(self.key)
        selected = ",\n           ".join(f"{v} AS {n}" for v, n in zip(values, names, strict=True))
        return f"""
INSERT INTO {self.name} AS t ({", ".join(names)})
SELECT DISTINCT ON ({key}) *
FROM (SELECT {selected}
      FROM {source}) AS page
ORDER BY {key}
ON CONFLICT ({key}) DO UPDATE SET
    {", ".join(assignments)}, last_synced_at = now()
WHERE ({", ".join(f"t.{c}" for c in compared)})
      IS DISTINCT FROM ({", ".join(f"excluded.{c}" for c in compared)})"""


_COLUMNS: Mapping[str, Mapping[str, str]] = _p({
    "earnings": _p({
        "id": "p->>'id'",
        # The row has no type: it is the type (and tips source) the query asked for.
        "type": "%(type)s::text",
        "tips_source": "%(tips_source)s::text",
        "created_at": "(p->>'createdAt')::timestamptz",
        "status": "p->>'status'",
        "amount": "(p->>'amount')::numeric",
        "net": "(p->>'net')::numeric",
        "fee": "(p->>'fee')::numeric",
        "vat_amount": "(p->>'vatAmount')::numeric",
        "tax_amount": "(p->>'taxAmount')::numeric",
        "media_tax_amount": "(p->>'mediaTaxAmount')::numeric",
        "currency": "p->>'currency'",
        "payout_pending_days": "(p->>'payoutPendingDays')::int",
        "user_id": "(p->'user'->>'id')::bigint",
    }),
    "chargebacks": _p({
        "id": "(p->>'id')::bigint",
        "created_at": "(p->>'createdAt')::timestamptz",
        "payment_type": "p->>'paymentType'",
        "payment_id": "p->'payment'->>'id'",
        "payment_created_at": "(p->'payment'->>'createdAt')::timestamptz",
        "amount": "(p->'payment'->>'amount')::numeric",
        "net": "(p->'payment'->>'net')::numeric",
        "fee": "(p->'payment'->>'fee')::numeric",
        "currency": "p->'payment'->>'currency'",
        "status": "p->'payment'->>'status'",
        "user_id": "(p->'payment'->'user'->>'id')::bigint",
    }),
    "payout_requests": _p({
        "id": "p->>'invoiceId'",
        "created_at": "(p->>'createdAt')::timestamptz",
        "amount": "(p->>'amount')::numeric",
        "currency": "p->>'currency'",
        "state": "p->>'state'",
        "reject_reason": "p->>'rejectReason'",
    }),
    "posts": _p({
        "id": "(p->>'id')::bigint",
        "posted_at": "(p->>'postedAt')::timestamptz",
        "posted_at_precise": "(p->>'postedAtPrecise')::numeric",
        "favorites_count": "(p->>'favoritesCount')::int",
        # "$1,234.50" -> 1234.50
        "tips_amount": "nullif(regexp_replace(p->>'tipsAmount', '[^0-9.-]', '', 'g'), '')::numeric",
        "is_pinned": "(p->>'isPinned')::boolean",
        "is_archived": "(p->>'isArchived')::boolean",
        "is_private_archived": "(p->>'isPrivateArchived')::boolean",
        "label_ids": "ARRAY(SELECT jsonb_array_elements_text(p->'labelIds')::bigint)",
        "media_types": "ARRAY(SELECT DISTINCT m->>'type' FROM jsonb_array_elements(p->'media') m ORDER BY 1)",
        "media_count": "(p->>'mediaCount')::int",
        "raw_text": "p->>'rawText'",
    }),
    "tracking_links": _p({
        "id": "(p->>'id')::bigint",
        "name": "p->>'name'",
        "campaign_code": "p->>'campaignCode'",
        "url": "p->>'url'",
        "created_at": "(p->>'createdAt')::timestamptz",
    }),
    "tracking_link_daily_stats": _p({
        "link_id": "%(link_id)s::bigint",
        "date": "(p->>'timestamp')::date",
        "clicks": "(p->>'clicks')::int",
        "subs": "(p->>'subs')::int",
        "revenue": "(p->>'revenue')::numeric",
        "spenders": "(p->>'spenders')::int",
    }),
})

_KEYS = {"tracking_link_daily_stats": ("account_id", "link_id", "date")}

TABLES: Mapping[str, SyncedTable] = _p({
    name: SyncedTable(name, columns, _KEYS.get(name, ("account_id", "id")))
    for name, columns in _COLUMNS.items()
})

#: Every constant any expression names; unset ones are NULL.
CONSTANTS = ("type", "tips_source", "link_id")

_ITEMS = "jsonb_array_elements(%(page)s::jsonb) AS items(p)"


def merge_sql(table: str) -> str:
    """Upsert of a JSON array of items (``%(page)s``) of one account into ``table``."""
    return TABLES[table].upsert_sql(_ITEMS)


_MERGES = {table: merge_sql(table) for table in TABLES}


async def write_items(
    conn: AsyncConnection, table: str, account_id: int, items: Sequence[Any], **constants: Any
) -> None:
    """Upsert one page of upstream items of one account (one statement)."""
    if not items:
        return
    params = {name: None for name in CONSTANTS} | constants
    await conn.execute(_MERGES[table], {**params, "account_id": account_id, "page": Jsonb(list(items))})
