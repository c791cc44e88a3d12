"""The one generic sync engine: runs any resource description for one leased task.

A task (one account, one resource) may carry three kinds of work, run in this order:

- ``incremental``: a pass per partition over ``[coverage_end - lookback, now]`` (the whole
  history for full-refresh resources), so new rows and changed recent rows reach the store;
- ``backfill``: a pass per partition over ``[since, coverage_start)``, for at most
  ``sync_backfill_slice_seconds`` per claim (the task is then released and re-claimed, so
  the incremental sync of the same pair keeps its interval while a long backfill runs);
- ``reconcile``: a pass over ``[since, coverage_end]`` that re-reads the covered range and
  fixes anything that changed outside the lookback window.

Per partition, ``sync_state.cursor`` holds (see docs/sync.md)::

    {"partitions": {"<name>": {"coverage": [start, end] | null,
                               "incremental" | "backfill" | "reconcile":
                                   {"lo": s | null, "hi": s, "position": {...} | null}}}}

Each page is fetched (partitions in parallel, up to ``sync_prefetch_pages`` ahead of the
writer) and written in its own transaction together with the new cursor, the coverage,
the run's counters and the lease fence: a worker killed at any instant leaves the store
and the cursor consistent, and the next holder resumes with the next page.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from app.settings import Settings
from app.upstream.client import UpstreamAccount, UpstreamClient, track_upstream_calls
from app.upstream.errors import UpstreamCredentialsRejected, UpstreamError, UpstreamRateLimited
from sync import leases
from sync.clock import UpstreamClock
from sync.cursors import BEGINNING
from sync.leases import Lease, LeaseLost
from sync.metrics import record_pass
from sync.pacing import TokenBucket
from sync.resources import REGISTRY, Partition, Resource, interval_of, lookback_of, resource
from sync.writers import PageWriter, WriteCounts

logger = logging.getLogger(__name__)

KINDS = ("incremental", "backfill", "reconcile")


@dataclass
class SyncContext:
    """What every task of one process shares."""

    settings: Settings
    pool: AsyncConnectionPool
    upstream: UpstreamClient
    clock: UpstreamClock
    worker_id: str
    pacer: TokenBucket
    stopping: asyncio.Event = field(default_factory=asyncio.Event)


# --- coverage arithmetic (pure) -------------------------------------------------------


def covered_after_page(coverage: list | None, kind: str, hi: int, oldest: int | None) -> list | None:
    """Coverage after one page of a pass. Only a backfill grows it page by page: its pass
    ends where the coverage starts, so "every row newer than the page's oldest" joins it."""
    if kind != "backfill" or oldest is None:
        return coverage
    start = oldest + 1
    if coverage is None:
        return [start, hi]
    return [min(coverage[0], start), coverage[1]]


def covered_after_pass(coverage: list | None, kind: str, lo: int | None, hi: int) -> list | None:
    """Coverage once a pass over [lo, hi] completed (lo None: from the beginning)."""
    start = BEGINNING if lo is None else lo
    if kind == "reconcile":
        return coverage
    if coverage is None:
        return [start, hi]
    end = max(coverage[1], hi) if kind == "incremental" else coverage[1]
    return [min(coverage[0], start), end]


def resource_coverage(partitions: dict[str, dict]) -> tuple[datetime | None, datetime | None]:
    """The resource's coverage: the range every partition covers (None if any has none)."""
    spans = [p.get("coverage") for p in partitions.values()]
    if not spans or any(s is None for s in spans):
        return None, None
    start = max(s[0] for s in spans)
    end = min(s[1] for s in spans)
    return _dt(start), _dt(end)


def _dt(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _seconds(value: datetime) -> int:
    return int(value.timestamp())


# --- one pass of one partition ---------------------------------------------------------


@dataclass
class PartitionPass:
    partition: Partition
    lo: int | None
    hi: int
    position: dict | None  # the next page to fetch (fetch side; the committed one is in state)


@dataclass
class Page:
    work: PartitionPass
    rows: list
    next_position: dict | None
    oldest: int | None


@dataclass
class RunTotals:
    pages: int = 0
    counts: WriteCounts = field(default_factory=WriteCounts)


class TaskRunner:
    """Runs the work of one leased task: the engine proper."""

    def __init__(self, ctx: SyncContext, lease: Lease, conn: AsyncConnection) -> None:
        self.ctx = ctx
        self.lease = lease
        self.conn = conn
        self.resource: Resource = resource(lease.resource)
        self.writer = PageWriter(
            self.resource, more_ctes=_BOOKKEEPING, more_columns=", (SELECT count(*) FROM fence)"
        )
        self.account = UpstreamAccount(lease.account_id, lease.upstream_token)
        self.state: dict[str, Any] = {"partitions": {}}
        self.partitions: list[Partition] = []
        self.on_page: Callable[[], None] | None = None

    # --- entry point -----------------------------------------------------------------

    async def run(self) -> None:
        """Do the task's due work, record runs, and release the lease with its next due time."""
        settings = self.ctx.settings
        if not await self._prerequisites_synced():
            # Its partitions come from a resource not synced yet: retry shortly (that
            # resource nudges this task when it completes).
            retry_at = datetime.now(UTC) + timedelta(seconds=settings.sync_poll_seconds * 5)
            await leases.release(self.conn, self.lease, due_at=retry_at, next_incremental_at=retry_at)
            return
        await self.writer.prepare(self.conn)
        await self._load_state()
        plan = self._plan()
        finished: dict[str, bool] = {}
        try:
            for kind, since in plan:
                finished[kind] = await self._run_kind(kind, since)
                if self.ctx.stopping.is_set():
                    break
        except LeaseLost:
            logger.warning("sync_lease_lost", extra=self._log_fields())
            return
        except Exception as exc:
            await self._release_after_failure(exc)
            return
        now = datetime.now(UTC)
        interval = timedelta(seconds=interval_of(settings, self.resource))
        # Unfinished work (a backfill slice ended, the worker is stopping) is due at once:
        # whoever claims the task next resumes it from the stored cursor.
        unfinished = any(not finished.get(kind, False) for kind, _ in plan)
        if finished.get("incremental"):
            await self._nudge_dependents()
        await leases.release(
            self.conn,
            self.lease,
            due_at=now if unfinished else now + interval,
            next_incremental_at=now + interval if finished.get("incremental") else None,
            backfill_done=self.lease.backfill_since if finished.get("backfill") else None,
            reconcile_done=bool(finished.get("reconcile")),
        )

    async def _prerequisites_synced(self) -> bool:
        if not self.resource.after:
            return True
        cur = await self.conn.execute(
            """
            SELECT count(*) FROM sync_state
            WHERE account_id = %s AND resource = ANY(%s) AND last_success_at IS NOT NULL
            """,
            (self.lease.account_id, list(self.resource.after)),
        )
        (synced,) = await cur.fetchone()
        return synced == len(self.resource.after)

    async def _nudge_dependents(self) -> None:
        """Resources read per row of this one (daily stats per link) follow its refresh."""
        dependents = [r.name for r in REGISTRY.values() if self.resource.name in r.after]
        if dependents:
            await self.conn.execute(
                """
                UPDATE sync_tasks SET due_at = now(), next_incremental_at = now()
                WHERE account_id = %s AND resource = ANY(%s)
                """,
                (self.lease.account_id, dependents),
            )

    def _plan(self) -> list[tuple[str, datetime | None]]:
        pending = {
            kind
            for part in self.state["partitions"].values()
            for kind in KINDS
            if part.get(kind) is not None
        }
        plan: list[tuple[str, datetime | None]] = []
        if self.lease.incremental_due or "incremental" in pending:
            plan.append(("incremental", None))
        if self.lease.backfill_since is not None or "backfill" in pending:
            plan.append(("backfill", self.lease.backfill_since))
        if self.lease.reconcile_since is not None or "reconcile" in pending:
            plan.append(("reconcile", self.lease.reconcile_since))
        return plan

    # --- state -----------------------------------------------------------------------

    async def _load_state(self) -> None:
        await self.conn.execute(
            "INSERT INTO sync_state (account_id, resource) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (self.lease.account_id, self.lease.resource),
        )
        cur = await self.conn.execute(
            "SELECT cursor FROM sync_state WHERE account_id = %s AND resource = %s",
            (self.lease.account_id, self.lease.resource),
        )
        row = await cur.fetchone()
        if row and row[0]:
            self.state = row[0]
        self.state.setdefault("partitions", {})
        self.partitions = await self.resource.partitions_of(self.conn, self.lease.account_id)
        for part in self.partitions:
            self.state["partitions"].setdefault(part.name, {"coverage": None})

    # --- one kind of work ---------------------------------------------------------------

    async def _run_kind(self, kind: str, since: datetime | None) -> bool:
        """Run (or resume) the kind's pass on every partition. True when all completed."""
        now = await self.ctx.clock.now()
        work = [w for part in self.partitions if (w := self._pass_for(part, kind, since, now))]
        if not work:
            return True
        run_id = await self._start_run(kind, work)
        deadline = None
        if kind != "incremental":
            deadline = time.monotonic() + self.ctx.settings.sync_backfill_slice_seconds
        totals = RunTotals()
        started = time.monotonic()
        with track_upstream_calls() as calls:
            try:
                complete = await self._pump(kind, work, run_id, deadline, totals)
            except BaseException as exc:
                await self._finish_run(run_id, "failed", calls.retries, totals, error=_describe(exc))
                raise
        status = "succeeded" if complete or not self.ctx.stopping.is_set() else "abandoned"
        error = None if status == "succeeded" else "worker stopping; resumes from its cursor"
        await self._finish_run(run_id, status, calls.retries, totals, error=error, complete=complete)
        counts = totals.counts
        record_pass(self.lease.resource, kind, time.monotonic() - started,
                    counts.inserted, counts.updated, counts.unchanged)
        # A routine incremental pass that changed nothing is a DEBUG line, not an INFO one.
        routine = kind == "incremental" and not (counts.inserted or counts.updated)
        logger.log(
            logging.DEBUG if routine else logging.INFO,
            "sync_run_finished",
            extra={
                **self._log_fields(),
                "kind": kind,
                "run_id": run_id,
                "complete": complete,
                "pages": totals.pages,
                "inserted": totals.counts.inserted,
                "updated": totals.counts.updated,
                "unchanged": totals.counts.unchanged,
                "retries": calls.retries,
            },
        )
        return complete

    def _pass_for(
        self, part: Partition, kind: str, since: datetime | None, now: int
    ) -> PartitionPass | None:
        """The partition's pass of ``kind``: the stored one (resume) or a new one."""
        pstate = self.state["partitions"][part.name]
        stored = pstate.get(kind)
        if stored is not None:
            return PartitionPass(part, stored["lo"], stored["hi"], stored["position"])
        coverage = pstate.get("coverage")
        if kind == "incremental":
            lookback = lookback_of(self.ctx.settings, self.resource)
            if self.resource.full_refresh:
                lo = None
            elif coverage is not None:
                lo = coverage[1] - lookback
            else:
                # A first sync: the recent past only; older history is a backfill's job.
                lo = now - lookback if lookback else None
            work = PartitionPass(part, lo, now, None)
        elif kind == "backfill":
            if self.resource.full_refresh:
                return None  # every incremental pass reads the whole history already
            target = BEGINNING if since is None else _seconds(since)
            if coverage is not None and coverage[0] <= target:
                return None
            hi = coverage[0] - 1 if coverage is not None else now
            work = PartitionPass(part, target, hi, None)
        else:
            if coverage is None:
                return None
            lo = coverage[0] if since is None else max(coverage[0], _seconds(since))
            work = PartitionPass(part, lo, coverage[1], None)
        pstate[kind] = {"lo": work.lo, "hi": work.hi, "position": None}
        return work

    async def _pump(
        self,
        kind: str,
        work: list[PartitionPass],
        run_id: int,
        deadline: float | None,
        totals: RunTotals,
    ) -> bool:
        """Fetch the partitions' pages concurrently and write them in arrival order.

        Each partition's fetcher follows its own cursor and hands pages to one writer
        through a bounded queue: page n+1 is on the wire while page n is written, and the
        queue bound caps memory. A partition's pages arrive in order, so its committed
        cursor always names the page after the last one written.
        """
        queue: asyncio.Queue[Page] = asyncio.Queue(self.ctx.settings.sync_prefetch_pages)
        paced = kind != "incremental"
        open_passes = {w.partition.name for w in work}

        def halted() -> bool:
            return self.ctx.stopping.is_set() or (deadline is not None and time.monotonic() > deadline)

        async def fetch(w: PartitionPass) -> None:
            cursor = self.resource.cursor
            while not halted():
                if paced:
                    await self.ctx.pacer.acquire()
                query = cursor.request(w.lo, w.hi, w.position, self.ctx.settings.sync_page_size)
                params = {**w.partition.params, **query}
                body = await self.ctx.upstream.get_json(
                    self.account,
                    self.resource.path,
                    path_params=w.partition.path_params,
                    params=params,
                    decode=self.resource.decode_page,
                )
                rows = self.resource.rows(body)
                next_position, oldest = cursor.advance(body, rows, w.lo, w.hi, w.position)
                await queue.put(Page(w, rows, next_position, oldest))
                if next_position is None:
                    return
                w.position = next_position

        async def produce() -> None:
            try:
                async with asyncio.TaskGroup() as group:
                    for w in work:
                        group.create_task(fetch(w))
            except BaseExceptionGroup as group:
                # The first failure is the cause; the others were cancelled because of it.
                raise group.exceptions[0] from None

        producer = asyncio.create_task(produce())

        async def next_page() -> Page | None:
            """The next fetched page; None once the fetchers are done and all is written."""
            while True:
                if not queue.empty():
                    return queue.get_nowait()
                if producer.done():
                    return None
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait({getter, producer}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    return getter.result()
                getter.cancel()

        try:
            while (page := await next_page()) is not None:
                await self._write_page(kind, page, run_id, totals)
                if page.next_position is None:
                    open_passes.discard(page.work.partition.name)
            await producer  # raises the fetchers' failure, if any
        except BaseException:
            producer.cancel()
            with contextlib.suppress(BaseException):
                await producer
            raise
        return not open_passes

    async def _write_page(self, kind: str, page: Page, run_id: int, totals: RunTotals) -> None:
        """One transaction: the rows, the partition's cursor and coverage, the run's
        counters and the lease fence. Memory is updated only after the commit."""
        name = page.work.partition.name
        partitions = copy.copy(self.state["partitions"])
        pstate = dict(partitions[name])
        if page.next_position is None:
            pstate["coverage"] = covered_after_pass(pstate.get("coverage"), kind, page.work.lo, page.work.hi)
            pstate[kind] = None
        else:
            pstate["coverage"] = covered_after_page(
                pstate.get("coverage"), kind, page.work.hi, page.oldest
            )
            pstate[kind] = {"lo": page.work.lo, "hi": page.work.hi, "position": page.next_position}
        partitions[name] = pstate
        new_state = {**self.state, "partitions": partitions}
        coverage_start, coverage_end = resource_coverage(partitions)
        async with self.conn.transaction():
            counts, (fenced,) = await self.writer.write_page(
                self.conn,
                page.rows,
                account_id=self.lease.account_id,
                run_id=run_id,
                constants=page.work.partition.constants,
                params={
                    "resource": self.lease.resource,
                    "token": self.lease.token,
                    "lease": self.ctx.settings.sync_lease_seconds,
                    "cursor": Jsonb(new_state, dumps=_dumps),
                    "coverage_start": coverage_start,
                    "coverage_end": coverage_end,
                    "staged": len(page.rows),
                },
            )
            if not fenced:
                # The lease is someone else's: nothing of this page may commit.
                raise LeaseLost(f"{self.lease.account_id}:{self.lease.resource}")
        self.state = new_state
        totals.pages += 1
        totals.counts = totals.counts + counts
        if self.on_page is not None:
            self.on_page()

    # --- run rows ------------------------------------------------------------------------

    async def _start_run(self, kind: str, work: list[PartitionPass]) -> int:
        details = {
            "lease_token": str(self.lease.token),
            "passes": {w.partition.name: [w.lo, w.hi] for w in work},
        }
        cur = await self.conn.execute(
            """
            INSERT INTO sync_runs (account_id, resource, kind, worker, details)
            VALUES (%s, %s, %s, %s, %s) RETURNING id
            """,
            (self.lease.account_id, self.lease.resource, kind, self.ctx.worker_id,
             Jsonb(details, dumps=_dumps)),
        )
        (run_id,) = await cur.fetchone()
        return run_id

    async def _finish_run(
        self,
        run_id: int,
        status: str,
        retries: int,
        totals: RunTotals,
        *,
        error: str | None = None,
        complete: bool = False,
    ) -> None:
        async with self.conn.transaction():
            await self.conn.execute(
                """
                UPDATE sync_runs SET status = %s, finished_at = now(), retries = %s, error = %s,
                       details = details || %s
                WHERE id = %s
                """,
                (status, retries, error, Jsonb({"complete": complete}, dumps=_dumps), run_id),
            )
            if status == "succeeded":
                await self.conn.execute(
                    """
                    UPDATE sync_state SET last_success_at = now(), last_error = NULL
                    WHERE account_id = %s AND resource = %s
                    """,
                    (self.lease.account_id, self.lease.resource),
                )
            elif error is not None and status == "failed":
                await self.conn.execute(
                    """
                    UPDATE sync_state SET last_error = %s, last_error_at = now()
                    WHERE account_id = %s AND resource = %s
                    """,
                    (error, self.lease.account_id, self.lease.resource),
                )

    async def _release_after_failure(self, exc: BaseException) -> None:
        """Log the failure and schedule a retry: Retry-After when the upstream gave one,
        the resource's interval for rejected credentials, else doubling up to a cap."""
        settings = self.ctx.settings
        failures = self.lease.failures + 1
        if isinstance(exc, UpstreamRateLimited) and exc.retry_after:
            delay = exc.retry_after
        elif isinstance(exc, UpstreamCredentialsRejected):
            delay = interval_of(settings, self.resource)
        else:
            delay = min(settings.sync_retry_max_seconds, 5.0 * 2 ** min(failures, 16))
        logger.warning(
            "sync_task_failed",
            extra={**self._log_fields(), "error": _describe(exc), "failures": failures,
                   "retry_in": round(delay, 1)},
            exc_info=not isinstance(exc, UpstreamError),
        )
        await leases.release(
            self.conn,
            self.lease,
            due_at=datetime.now(UTC) + timedelta(seconds=delay),
            failed=True,
        )

    def _log_fields(self) -> dict:
        return {"account_id": self.lease.account_id, "resource": self.lease.resource,
                "worker": self.ctx.worker_id}


# The page's bookkeeping, in the merge statement itself (one statement per page after its
# COPY): the lease fence (extends the lease; no row means the lease is lost and the engine
# rolls the page back), the partition's new cursor and the resource's coverage, and the
# run's counters (``counts`` is the merge's).
_BOOKKEEPING = f"""
, fence AS ({leases.FENCE_SQL})
, state AS (
    UPDATE sync_state SET cursor = %(cursor)s, coverage_start = %(coverage_start)s,
           coverage_end = %(coverage_end)s, last_run_id = %(run_id)s, updated_at = now()
    WHERE account_id = %(account_id)s AND resource = %(resource)s
)
, run AS (
    UPDATE sync_runs SET pages = pages + 1, rows_inserted = rows_inserted + counts.inserted,
           rows_updated = rows_updated + counts.updated,
           rows_unchanged = rows_unchanged + %(staged)s - counts.inserted - counts.updated
    FROM counts
    WHERE id = %(run_id)s
)"""


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
        return _describe(exc)
    if isinstance(exc, UpstreamError):
        return f"{exc.code}: {exc.reason}"
    return f"{type(exc).__name__}: {exc}"


def _dumps(value: Any) -> str:
    return msgspec.json.encode(value).decode()


async def run_lease(ctx: SyncContext, lease: Lease, *, on_page: Callable[[], None] | None = None) -> None:
    """Run one claimed task on a connection of its own."""
    async with ctx.pool.connection() as conn:
        runner = TaskRunner(ctx, lease, conn)
        runner.on_page = on_page
        await runner.run()
