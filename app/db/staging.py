"""Where a page write keeps a page's rows between its statements (``app/store/mapping.py``).

- ``sync_page_rows``: the page as the upstream sent it, COPYed in (one JSON item per row);
- ``sync_page_old``: the stored versions of the page's rows, the columns its upkeep reads
  (``app/store/upkeep.py``), kept before the upsert.

Both hold a row only inside the transaction that writes the page: its last statement
deletes them, and a rolled-back page takes them with it. Rows of pages written at the same
time are told apart by ``batch``, a random number per page. They are per-account tables,
so on Citus they are distributed and co-located with the synced tables: a page's rows go to
its account's shard and every statement of the write is one shard's. Their replica
identity is the whole row (migration 0024): Citus moves shards by logical replication,
which needs one, and the tables have no key.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Table
from sqlalchemy.dialects.postgresql import JSONB

from app.db.base import Base
from app.db.tenancy import per_account


def _staging(name: str, payload: str) -> Table:
    return Table(
        name, Base.metadata,
        Column("account_id", BigInteger, nullable=False),
        Column("batch", BigInteger, nullable=False),
        Column(payload, JSONB, nullable=False),
        # Rows live only inside a page's transaction, but dead ones stay until vacuumed:
        # the index finds a page's rows without reading those.
        Index(None, "account_id", "batch"),
        info=per_account(analysts=False),
    )


sync_page_rows = _staging("sync_page_rows", "p")
sync_page_old = _staging("sync_page_old", "old")
