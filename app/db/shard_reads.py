"""Where a store read goes: the read pool, or on Citus the worker that holds the account.

Through a Citus coordinator, a store page costs a second hop: the coordinator plans the
statement, sends it to the worker that holds the account's shard, and forwards the rows
back (measured: docs/benchmarks.md, case h). Every node of a Citus 11+ cluster holds the
metadata and runs statements on distributed tables itself; on the worker that holds the
shard, a single-shard statement executes there, locally. So on a Citus coordinator the API
sends an account's store reads -- coverage and rows alike, both from the same server as
``app.store.source`` needs -- straight to that worker (``RELAY_CITUS_DIRECT_READS``). All of
an account's tables are co-located, so one placement answers for every store read of it.

The placement is learned from the coordinator's metadata, in the background, the first time
an account is read and again ``PLACEMENT_TTL`` seconds later; meanwhile the read goes
through the coordinator, which is correct everywhere (one hop more). A worker the API cannot
reach (a connection fails when its pool opens) is not used until the placement is
re-learned. A shard that moves (``citus_rebalance_start``) is still read correctly on the
worker it left -- that worker forwards the statement, as the coordinator would -- until its
placement is re-learned. Writes, the gate and the events stay on the coordinator's pool.

On the worker a statement on a distributed table is still planned by Citus (its fast path,
then the shard's own statement), which costs a one-item page more than the read itself
(measured: docs/scaling.md). So the batched page reads (``app.store.batched``) read the
account's shard there as the plain table it is (``shard``): the shard names of the co-located
group are learned with the placement. A shard that moved is not read stale: each such
statement also asks, in the same snapshot, whether that worker still holds the shard, and
where it does not (or the shard is gone) the read goes through the coordinator and the
placement is learned again (``forget``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from psycopg import AsyncConnection
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool

from app.db.pool import checkout, create_pool, pool_conninfo
from app.settings import Settings

logger = logging.getLogger(__name__)

#: How long a learned placement is used before it is learned again (seconds): after a
#: rebalance, reads go one hop further for at most this long.
PLACEMENT_TTL = 60.0

#: How long after the coordinator could not be asked (down, or not migrated yet) it is
#: asked again whether it is a Citus coordinator (seconds).
RETRY_AFTER = 5.0

#: Whether the database is a Citus coordinator whose store tables are distributed: true,
#: false (a worker, or not distributed yet: asked again later). Asked only where the
#: extension is installed (it names Citus's own catalog).
_DISTRIBUTED_SQL = """
SELECT citus_is_coordinator()
   AND EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = to_regclass(%s))
"""

#: The node of the account's shard of ``table`` (any of the co-located group): the primary
#: placement on an active worker; the coordinator itself (group 0) answers none.
_PLACEMENT_SQL = """
SELECT n.nodename, n.nodeport, n.groupid
FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
WHERE p.shardid = get_shard_id_for_distribution_column(%s, %s)
  AND n.isactive AND n.noderole = 'primary' AND n.groupid <> 0
LIMIT 1
"""

#: The account's shard of every table co-located with ``PLACED_BY``: (table, shard id, the
#: shard's relation name as ``shard_name`` quotes it).
_SHARDS_SQL = """
SELECT t.logicalrelid::regclass::text, s.shardid, shard_name(t.logicalrelid, s.shardid)
FROM pg_dist_partition t
CROSS JOIN LATERAL (SELECT get_shard_id_for_distribution_column(t.logicalrelid, %(account)s) AS shardid) s
WHERE t.colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = to_regclass(%(table)s))
"""

#: The table whose shards place an account: the coverage that every store read reads first.
PLACED_BY = "sync_state"


@dataclass(frozen=True, slots=True)
class Shard:
    """An account's shard of one table: readable as ``relation`` on ``pool`` while the worker
    group ``group`` holds shard ``shard_id`` (``pg_dist_placement``, the worker's own copy)."""

    pool: AsyncConnectionPool
    shard_id: int
    group: int
    relation: str


@dataclass(slots=True)
class _Placement:
    pool: AsyncConnectionPool | None  # None: through the coordinator
    expires: float
    shards: dict[str, Shard]  # by table name


class ReadPools:
    """The pool each account's store reads go to (``for_account``).

    ``read_pool``: the reads' pool (the primary's, or the replica's under
    ``RELAY_DATABASE_READ_URL``). ``coordinator``: where placements are learned; None (a
    replica is configured, or ``RELAY_CITUS_DIRECT_READS`` is off) keeps every read on
    ``read_pool``. On plain PostgreSQL the first question finds no Citus and nothing else is
    asked again.
    """

    def __init__(self, read_pool: AsyncConnectionPool, settings: Settings,
                 coordinator: AsyncConnectionPool | None = None) -> None:
        self._default = read_pool
        self._settings = settings
        self._coordinator = coordinator
        #: None: not known yet whether the database is a Citus coordinator.
        self._citus: bool | None = None if coordinator is not None else False
        self._asked_at = -RETRY_AFTER
        self._placements: dict[int, _Placement] = {}
        self._nodes: dict[tuple[str, int], AsyncConnectionPool] = {}
        self._learning: dict[int, asyncio.Task[None]] = {}
        self._closed = False

    @property
    def node_pools(self) -> int:
        """How many workers this process holds a pool on."""
        return len(self._nodes)

    @property
    def distributed(self) -> bool:
        """Whether the reads are on a Citus cluster (known after the first read's question)."""
        return self._citus is True

    @property
    def learning(self) -> int:
        """How many placements are being learned now."""
        return len(self._learning)

    def for_account(self, account_id: int) -> AsyncConnectionPool:
        """The pool for the account's store reads now; never waits (what is not known yet
        is learned in the background)."""
        if self._citus is False or self._closed:
            return self._default
        placement = self._placements.get(account_id)
        if placement is None or placement.expires <= time.monotonic():
            self._learn_soon(account_id)
        if placement is None or placement.pool is None:
            return self._default
        return placement.pool

    def shard(self, account_id: int, table: str) -> Shard | None:
        """The account's shard of ``table`` where its worker is known (``for_account`` has
        learned it); None: read ``table`` by its name on ``for_account``'s pool."""
        if self._closed:
            return None
        placement = self._placements.get(account_id)
        return None if placement is None else placement.shards.get(table)

    def forget(self, account_id: int) -> None:
        """The account's placement is out of date (a shard read found its shard moved): its
        reads go through the coordinator until it is learned again, which starts now."""
        self._placements.pop(account_id, None)
        self.for_account(account_id)

    def _learn_soon(self, account_id: int) -> None:
        if account_id in self._learning:
            return
        if self._citus is None:
            # Not known yet whether this is a Citus coordinator: one question at a time.
            if time.monotonic() - self._asked_at < RETRY_AFTER:
                return
            self._asked_at = time.monotonic()
        task = asyncio.ensure_future(self._learn(account_id))
        self._learning[account_id] = task
        task.add_done_callback(lambda _: self._learning.pop(account_id, None))

    async def _learn(self, account_id: int) -> None:
        assert self._coordinator is not None
        try:
            async with checkout(self._coordinator) as conn:
                if self._citus is None:
                    self._citus = await _citus_kind(conn)
                    if not self._citus:
                        return
                cur = await conn.execute(_PLACEMENT_SQL, (PLACED_BY, account_id))
                node = await cur.fetchone()
                cur = await conn.execute(_SHARDS_SQL, {"account": account_id, "table": PLACED_BY})
                shards = await cur.fetchall()
        except Exception:  # noqa: BLE001 - the reads go through the coordinator meanwhile
            logger.warning("citus_placement_unknown", extra={"account_id": account_id}, exc_info=True)
            return
        if node is None:  # on the coordinator itself (a single-node cluster)
            self._placements[account_id] = _Placement(None, time.monotonic() + PLACEMENT_TTL, {})
            return
        host, port, group = node
        pool = await self._node_pool(host, port)
        by_table = {} if pool is None else {
            table: Shard(pool, shard_id, group, relation) for table, shard_id, relation in shards}
        self._placements[account_id] = _Placement(pool, time.monotonic() + PLACEMENT_TTL, by_table)

    async def _node_pool(self, host: str, port: int) -> AsyncConnectionPool | None:
        """The pool on the worker at host:port, opened on first use; None where it cannot
        be reached (its reads go through the coordinator, and it is tried again when the
        placement is re-learned)."""
        pool = self._nodes.get((host, port))
        if pool is not None:
            return pool
        assert self._coordinator is not None
        conninfo = make_conninfo(pool_conninfo(self._coordinator), host=host, port=port)
        pool = create_pool(conninfo, self._settings, name="api-shard")
        try:
            await pool.open(wait=True, timeout=self._settings.db_wait_timeout * 5)
        except BaseException as exc:
            await pool.close()
            if not isinstance(exc, Exception):  # cancelled (the process stops): not kept
                raise
            logger.warning("citus_worker_unreachable", extra={"node": f"{host}:{port}"}, exc_info=True)
            return None
        # Another account's learning may have opened one meanwhile (keep the first), or the
        # process closed its pools meanwhile.
        if (host, port) in self._nodes or self._closed:
            await pool.close()
            return self._nodes.get((host, port))
        self._nodes[host, port] = pool
        logger.info("citus_worker_reads", extra={"node": f"{host}:{port}"})
        return pool

    async def learned(self) -> None:
        """Until what is being learned now is learned (or failed)."""
        await asyncio.gather(*self._learning.values(), return_exceptions=True)

    async def close(self) -> None:
        self._closed = True
        for task in list(self._learning.values()):
            task.cancel()
        await asyncio.gather(*self._learning.values(), return_exceptions=True)
        for pool in self._nodes.values():
            await pool.close()
        self._nodes.clear()


async def _citus_kind(conn: AsyncConnection) -> bool | None:
    """False: plain PostgreSQL (never asked again). True: a Citus coordinator with the store's
    tables distributed. None: Citus, but not that (yet): asked again after ``RETRY_AFTER``."""
    cur = await conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'")
    if await cur.fetchone() is None:
        return False
    cur = await conn.execute(_DISTRIBUTED_SQL, (PLACED_BY,))
    row = await cur.fetchone()
    return True if row and row[0] else None
