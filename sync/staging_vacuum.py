"""Reclaiming the page write's staging tables while the sync runs (``app/db/staging.py``).

Every page's rows go into ``sync_page_rows`` and ``sync_page_old`` and out again inside the
page's transaction, so each page leaves its rows behind as dead tuples until a vacuum
reclaims them. Autovacuum visits a database about once a minute (``autovacuum_naptime``),
and a backfill stages far more than that in a minute: measured, 710 MB of staging tables
after one 1,000,000-row backfill beside the 1,142 MB earnings table (docs/benchmarks.md,
case d). So each sync process vacuums them itself once it has staged
``RELAY_SYNC_STAGING_VACUUM_ROWS`` rows since its last vacuum: the next pages reuse the
space, and the tables stay near that many rows per process. ``SKIP_LOCKED``: a vacuum
already running (another process's, autovacuum's) is not waited for. On Citus the
coordinator sends it to every shard.
"""

from __future__ import annotations

import logging
import time

import psycopg
from psycopg import AsyncConnection

from sync.metrics import STAGING_VACUUMS

logger = logging.getLogger(__name__)

VACUUM_SQL = "VACUUM (SKIP_LOCKED) sync_page_rows, sync_page_old"


class StagingVacuum:
    """One sync process's count of rows staged since its last vacuum of the staging tables."""

    def __init__(self, every_rows: int) -> None:
        self._every = every_rows
        self._staged = 0
        self._running = False
        #: Vacuums this process ran.
        self.vacuums = 0

    async def after_page(self, conn: AsyncConnection, rows: int) -> None:
        """Counts a committed page's staged rows; once ``every_rows`` have been staged,
        vacuums the staging tables on ``conn`` (autocommit: outside any transaction). A
        vacuum that fails costs only disk space until the next one: logged, not raised;
        a lost connection is raised, as any statement's."""
        self._staged += rows
        if self._every <= 0 or self._staged < self._every or self._running or not conn.autocommit:
            return
        staged, self._staged, self._running = self._staged, 0, True
        started = time.perf_counter()
        try:
            await conn.execute(VACUUM_SQL)
        except psycopg.OperationalError:
            raise
        except psycopg.Error:
            STAGING_VACUUMS.labels("failed").inc()
            logger.warning("sync_staging_vacuum_failed", exc_info=True)
            return
        finally:
            self._running = False
        self.vacuums += 1
        STAGING_VACUUMS.labels("done").inc()
        logger.info("sync_staging_vacuumed",
                    extra={"staged_rows": staged, "ms": round((time.perf_counter() - started) * 1000, 1)})
