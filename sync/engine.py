"""The one generic sync engine: runs any resource description for one leased task.

A task (one account, one resource) may carry three kinds of work, run in this order:
``incremental`` (each head interval: the resource's head check, one cheap request, and the
partitioned passes over the new rows only when it saw news; the whole lookback window on
its own slower cadence), ``backfill`` (at most ``sync_backfill_slice_seconds`` per claim, so the
incremental sync of the same pair keeps its interval while a long backfill runs) and
``reconcile``; ``sync.coverage`` plans their windows. Each page is fetched by
``sync.pipeline`` and written in its own transaction together with the new cursor, the
coverage, the run's counters and the lease fence (``sync.state.FENCE``, ``BOOKKEEPING``): a worker
killed at any instant leaves the store and the cursor consistent, and the next holder
resumes with the next page.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app.crypto.keyring import Keyring, UnreadableSecret
from app.settings import Settings
from app.upstream.client import UpstreamAccount, UpstreamClient
from app.upstream.stats import track_upstream_calls
from sync import coverage as rules  # the planning rules: which windows, what is covered
from sync import leases, state
from sync.clock import UpstreamClock
from sync.coverage import PartitionPass
from sync.cursor_state import CursorState, Kind, PassState
from sync.failures import CredentialUnreadable, describe, expected, rejects_credentials, retry_delay
from sync.leases import Lease, LeaseLost
from sync.metrics import record_head_check, record_pass
from sync.pipeline import Page, pump
from sync.resources import REGISTRY, Partition, Resource, interval_of, lookback_interval_of, lookback_of, resource
from sync.staging_vacuum import StagingVacuum
from sync.upstream_budget import UpstreamBudget, take_slot
from sync.writers import PageWriter, WriteCounts

__all__ = ["SyncContext", "TaskRunner", "run_lease"]

logger = logging.getLogger(__name__)


@dataclass
class SyncContext:
    """What every task of one process shares."""

    settings: Settings
    pool: AsyncConnectionPool
    upstream: UpstreamClient
    clock: UpstreamClock
    worker_id: str
    pacer: AbstractAsyncContextManager  # sync.pacing.backfill_pacer
    keyring: Keyring  # decrypts the leased accounts' credentials
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    # The per-account upstream budget every request takes a slot from (None: no budget).
    budget: UpstreamBudget | None = None
    staging: StagingVacuum = field(default_factory=lambda: StagingVacuum(0))


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
            self.resource, locked_ctes=state.FENCE, more_locked=state.FENCE_COLUMNS, more_ctes=state.BOOKKEEPING
        )
        self.account: UpstreamAccount | None = None  # decrypted in run(), where a failure is recorded
        self.state: CursorState[Any] = CursorState()
        self.partitions: list[Partition] = []
        self.on_page: Callable[[], None] | None = None

    async def run(self) -> None:
        """Do the task's due work, record runs, and release the lease with its next due time."""
        settings = self.ctx.settings
        after = self.resource.after
        if after and await state.synced_count(self.conn, self.lease.account_id, after) < len(after):
            # Its partitions come from a resource not synced yet: retry shortly (that
            # resource nudges this task when it completes).
            retry_at = datetime.now(UTC) + timedelta(seconds=settings.sync_poll_seconds * 5)
            await leases.release(self.conn, self.lease, due_at=retry_at, next_incremental_at=retry_at)
            return
        try:
            token = self.ctx.keyring.decrypt(self.lease.upstream_token)
        except UnreadableSecret as exc:
            await self._release_after_failure(CredentialUnreadable(f"stored credential unreadable: {exc}"))
            return
        self.account = UpstreamAccount(self.lease.account_id, token)
        await self._load_state()
        plan = rules.kinds_due(
            self.state.partitions,
            incremental_due=self.lease.incremental_due,
            backfill_since=self.lease.backfill_since,
            reconcile_since=self.lease.reconcile_since,
        )
        finished: dict[Kind, bool] = {}
        read_rows = False  # an incremental pass read the partitions (not only a head check)
        try:
            for kind, since in plan:
                if kind == "incremental":
                    finished[kind], read_rows = await self._incremental()
                else:
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
        if finished.get("incremental") and read_rows:
            dependents = [r.name for r in REGISTRY.values() if self.resource.name in r.after]
            await leases.nudge(self.conn, self.lease.account_id, dependents)
        await leases.release(
            self.conn,
            self.lease,
            due_at=now if unfinished else now + interval,
            next_incremental_at=now + interval if finished.get("incremental") else None,
            backfill_done=self.lease.backfill_since if finished.get("backfill") else None,
            reconcile_done=bool(finished.get("reconcile")),
        )

    async def _load_state(self) -> None:
        stored = await state.load_cursor(
            self.conn, self.lease.account_id, self.lease.resource, self.resource.cursor.position_type
        )
        self.partitions = await self.resource.partitions_of(self.conn, self.lease.account_id)
        self.state = stored.with_partitions(part.name for part in self.partitions)

    async def _incremental(self) -> tuple[bool, bool]:
        """The incremental run (``sync.coverage.incremental_mode`` says which): returns
        (completed, whether the partitions were read)."""
        settings = self.ctx.settings
        now = await self.ctx.clock.now()
        mode = rules.incremental_mode(
            self.state.partitions, has_head=self.resource.head is not None,
            lookback_at=self.state.last_lookback, now=now,
            lookback_interval=lookback_interval_of(settings, self.resource),
        )
        if mode == "head":
            if not await self._head_check(now):
                return True, False
            mode = "new rows"
        lookback = 0
        if mode == "lookback":
            lookback = lookback_of(settings, self.resource)
            # Committed with the pass's first page; an unfinished pass is resumed anyway.
            self.state = msgspec.structs.replace(self.state, lookback_at=now)
        return await self._run_kind("incremental", None, now=now, lookback=lookback, mode=mode), True

    async def _head_check(self, now: int) -> bool:
        """Ask the resource's head check whether anything appeared after the coverage end.
        Nothing: the coverage moves to ``now`` (one fenced statement) and False. News: True
        (the caller reads the partitions' new rows)."""
        head, account = self.resource.head, self.account
        assert head is not None and account is not None  # a head check is planned for a resource with one, in run()
        partitions = self.state.partitions
        since = rules.coverage_end_of(partitions)
        query = head.request(since, now)
        body, rows = None, []
        if query is not None:
            body = await self.ctx.upstream.get_json(
                account, self.resource.path, params=query, decode=self.resource.decode_page,
                before_attempt=self._slot_taker(paced=False),
            )
            rows = self.resource.rows(body)
        news, marks = head.news(body, rows, since, now, self.state.head_marks)
        record_head_check(self.lease.resource, news=news, requests=int(query is not None))
        if news:
            # Committed with the first page of the new rows.
            self.state = msgspec.structs.replace(self.state, head=marks)
            return True
        new_state = msgspec.structs.replace(self.state, partitions=rules.extended_to(partitions, now), head=marks)
        coverage_start, coverage_end = rules.resource_coverage(new_state.partitions)
        fenced = await state.advance_coverage(
            self.conn, account_id=self.lease.account_id, resource=self.lease.resource,
            token=self.lease.token, lease=self.ctx.settings.sync_lease_seconds,
            cursor=new_state, coverage_start=coverage_start, coverage_end=coverage_end,
        )
        if not fenced:
            raise LeaseLost(f"{self.lease.account_id}:{self.lease.resource}")
        self.state = new_state
        return False

    def _slot_taker(self, *, paced: bool) -> Callable[[], Awaitable[None]]:
        """Awaited before each attempt of an upstream request, a retry too (``take_slot``);
        backfill and reconcile pages are ``paced``: they yield to incremental work."""
        return functools.partial(take_slot, self.ctx.budget, self.lease.account_id, self.ctx.pacer if paced else None)

    async def _run_kind(
        self, kind: Kind, since: datetime | None, *, now: int | None = None, lookback: int = 0,
        mode: str | None = None,
    ) -> bool:
        """Run (or resume) the kind's pass on every partition. True when all completed.
        ``lookback``: how far before its coverage end a new incremental pass starts."""
        if now is None:
            now = await self.ctx.clock.now()
        work = [w for part in self.partitions
                if (w := self._pass_for(part, kind, since, now, lookback))]
        if not work:
            return True
        details = {"lease_token": str(self.lease.token),
                   "passes": {w.partition.name: [w.lo, w.hi] for w in work}}
        if mode is not None:
            details["mode"] = mode
        run_id = await state.start_run(
            self.conn, self.lease.account_id, self.lease.resource, kind, self.ctx.worker_id, details
        )
        deadline = None
        if kind != "incremental":
            deadline = time.monotonic() + self.ctx.settings.sync_backfill_slice_seconds

        def halted() -> bool:
            return self.ctx.stopping.is_set() or (deadline is not None and time.monotonic() > deadline)

        totals = RunTotals()
        started = time.monotonic()

        async def write(page: Page) -> None:
            await self._write_page(kind, page, run_id, totals)

        async def fetch(w: PartitionPass) -> Page:
            return await self._fetch_page(w, paced=kind != "incremental")

        with track_upstream_calls() as calls:
            try:
                complete = await pump(
                    work, fetch, write, prefetch=self.ctx.settings.sync_prefetch_pages, halted=halted
                )
            except BaseException as exc:
                await self._finish_run(run_id, "failed", calls.retries, error=describe(exc))
                raise
        status = "succeeded" if complete or not self.ctx.stopping.is_set() else "abandoned"
        error = None if status == "succeeded" else "worker stopping; resumes from its cursor"
        await self._finish_run(run_id, status, calls.retries, error=error, complete=complete)
        counts = totals.counts
        record_pass(self.lease.resource, kind, time.monotonic() - started,
                    counts.inserted, counts.updated, counts.unchanged)
        # A routine incremental pass that changed nothing is a DEBUG line, not an INFO one.
        routine = kind == "incremental" and not (counts.inserted or counts.updated)
        logger.log(
            logging.DEBUG if routine else logging.INFO,
            "sync_run_finished",
            extra={
                **self._log_fields(), "kind": kind, "run_id": run_id, "complete": complete,
                "pages": totals.pages, "inserted": totals.counts.inserted,
                "updated": totals.counts.updated, "unchanged": totals.counts.unchanged,
                "retries": calls.retries,
            },
        )
        return complete

    def _pass_for(
        self, part: Partition, kind: Kind, since: datetime | None, now: int, lookback: int
    ) -> PartitionPass | None:
        """The partition's pass of ``kind``: the stored one (resume) or a new one."""
        pstate = self.state.partitions[part.name]
        stored = pstate.pass_of(kind)
        if stored is not None:
            return PartitionPass(part, stored.lo, stored.hi, stored.position)
        if pstate.coverage is None:
            # A first pass reads the recent past (older history is a backfill's job).
            lookback = lookback_of(self.ctx.settings, self.resource)
        window = rules.new_window(
            pstate.coverage, kind, since, now,
            lookback=lookback, full_refresh=self.resource.full_refresh,
        )
        if window is None:
            return None
        lo, hi = window
        # Committed with the pass's first page.
        started = pstate.with_pass(kind, PassState(lo, hi, None), pstate.coverage)
        self.state = self.state.with_partition(part.name, started)
        return PartitionPass(part, lo, hi, None)

    async def _fetch_page(self, w: PartitionPass, *, paced: bool) -> Page:
        """One upstream page of the pass at its position; each attempt after a slot of the
        account's budget (``_slot_taker``)."""
        cursor = self.resource.cursor
        query = cursor.request(w.lo, w.hi, w.position, self.ctx.settings.sync_page_size)
        assert self.account is not None  # decrypted in run(), before any pass
        body = await self.ctx.upstream.get_json(
            self.account,
            self.resource.path,
            path_params=w.partition.path_params,
            params={**w.partition.params, **query},
            decode=self.resource.decode_page,
            before_attempt=self._slot_taker(paced=paced),
        )
        rows = self.resource.rows(body)
        next_position, oldest = cursor.advance(body, rows, w.lo, w.hi, w.position)
        return Page(w, rows, next_position, oldest)

    async def _write_page(self, kind: Kind, page: Page, run_id: int, totals: RunTotals) -> None:
        """One transaction: the rows, the partition's cursor and coverage, the run's
        counters and the lease fence. Memory is updated only after the commit."""
        w = page.work
        name = w.partition.name
        pstate = self.state.partitions[name]
        if page.next_position is None:
            pstate = pstate.with_pass(kind, None, rules.covered_after_pass(pstate.coverage, kind, w.lo, w.hi))
        else:
            pstate = pstate.with_pass(kind, PassState(w.lo, w.hi, page.next_position),
                                      rules.covered_after_page(pstate.coverage, kind, w.hi, page.oldest))
        new_state = self.state.with_partition(name, pstate)
        coverage_start, coverage_end = rules.resource_coverage(new_state.partitions)
        async with self.conn.transaction():
            counts, (fenced,), _ = await self.writer.write_page(
                self.conn,
                page.rows,
                account_id=self.lease.account_id,
                run_id=run_id,
                constants=page.work.partition.constants,
                params={
                    "resource": self.lease.resource,
                    "token": self.lease.token,
                    "lease": self.ctx.settings.sync_lease_seconds,
                    "cursor": state.cursor_json(new_state),
                    "coverage_start": coverage_start,
                    "coverage_end": coverage_end,
                    "staged": len(page.rows),
                },
            )
            if not fenced:
                # The lease is someone else's: nothing of this page may commit.
                raise LeaseLost(f"{self.lease.account_id}:{self.lease.resource}")
        self.state = new_state
        await self.ctx.staging.after_page(self.conn, len(page.rows))
        totals.pages += 1
        totals.counts = totals.counts + counts
        if self.on_page is not None:
            self.on_page()

    async def _finish_run(
        self, run_id: int, status: str, retries: int, *, error: str | None = None, complete: bool = False
    ) -> None:
        await state.finish_run(
            self.conn, run_id, self.lease.account_id, self.lease.resource,
            status=status, retries=retries, error=error, complete=complete,
        )

    async def _release_after_failure(self, exc: BaseException) -> None:
        """Log the failure, record it as the pair's last error (a run already did; a head
        check has none), mark the account when the upstream rejected its credential, and
        schedule a retry (claimed only once the account is active again)."""
        failures = self.lease.failures + 1
        delay = retry_delay(exc, failures, self.ctx.settings, interval_of(self.ctx.settings, self.resource))
        logger.warning(
            "sync_task_failed",
            extra={**self._log_fields(), "error": describe(exc), "failures": failures,
                   "retry_in": round(delay, 1)},
            exc_info=not expected(exc),
        )
        await state.record_error(self.conn, self.lease.account_id, self.lease.resource, describe(exc),
                                 credentials_rejected=rejects_credentials(exc))
        await leases.release(
            self.conn, self.lease, due_at=datetime.now(UTC) + timedelta(seconds=delay), failed=True
        )

    def _log_fields(self) -> dict:
        return {"account_id": self.lease.account_id, "resource": self.lease.resource,
                "worker": self.ctx.worker_id}


async def run_lease(ctx: SyncContext, lease: Lease, *, on_page: Callable[[], None] | None = None) -> None:
    """Run one claimed task on a connection of its own."""
    async with ctx.pool.connection() as conn:
        runner = TaskRunner(ctx, lease, conn)
        runner.on_page = on_page
        await runner.run()
