"""The workers' side of schedules: claim due runs, do them, record them.

Every ``relay worker`` runs :func:`run_schedules` next to its claim loop. A run of

- ``backfill`` / ``reconcile`` records the request on the targets' sync tasks (what
  ``relay sync backfill --enqueue-only`` does) and watches them until the request is done:
  the sync workers do the passes under their task leases, so a scheduled pass never collides
  with the incremental sync of the same (account, resource). Its rows are the ``sync_runs``
  of that kind started since; a task that fails on it fails the run with its error.
- ``export`` writes one file per (account, resource) with the rows of its window
  (``app.exports.files``: the export route's columns and encoders, written atomically).

A failed run is retried with the sync's backoff (``sync.failures.retry_delay``); a worker
that stops abandons its runs, which another worker retries at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.exports import rows as export_store
from app.exports.columns import RESOURCES as EXPORTABLE
from app.exports.files import write_export_file
from app.exports.run import window_inside
from sync import leases
from sync.engine import SyncContext
from sync.failures import describe, expected, retry_delay
from sync.metrics import record_schedule_run
from sync.pairs import pair_keys
from sync.resources import REGISTRY
from sync.schedules import store
from sync.schedules.store import ClaimedRun
from sync.schedules.timing import EPOCH, parse_since

logger = logging.getLogger(__name__)


class RunFailed(Exception):
    """A scheduled run could not do its work (the message is the run's error)."""


async def _now(ctx: SyncContext) -> datetime:
    return datetime.fromtimestamp(await ctx.clock.now(), UTC)


async def run_schedules(ctx: SyncContext) -> None:
    """Claim and run due schedules until the worker stops (each run in a task of its own)."""
    running: set[asyncio.Task] = set()
    try:
        while not ctx.stopping.is_set():
            if len(running) >= ctx.settings.sync_worker_concurrency:
                # Bounded like the sync's tasks: what is due waits for a free slot here, or
                # for another worker, instead of this one opening every run at once.
                await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                continue
            try:
                async with ctx.pool.connection() as conn:
                    run = await store.claim(conn, ctx.worker_id, await _now(ctx), ctx.settings.sync_lease_seconds)
            except Exception:
                logger.exception("schedule_claim_failed", extra={"worker": ctx.worker_id})
                run = None
            if run is not None:
                task = asyncio.create_task(_run_one(ctx, run))
                running.add(task)
                task.add_done_callback(running.discard)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ctx.stopping.wait(), ctx.settings.sync_poll_seconds)
    finally:
        for task in list(running):
            task.cancel()
        if running:
            await asyncio.wait(list(running))


async def _run_one(ctx: SyncContext, run: ClaimedRun) -> None:
    """Do one claimed run under its lease and record how it ended."""
    fields = {"schedule_id": run.schedule_id, "action": run.action, "due_at": run.due_at.isoformat(),
              "attempt": run.attempt, "worker": ctx.worker_id}
    started = time.monotonic()
    work = asyncio.create_task(_do(ctx, run))
    keeper = asyncio.create_task(_hold_lease(ctx, run, work))
    try:
        rows_read, rows_changed, details = await work
    except asyncio.CancelledError:
        # The worker is stopping (or the lease was lost): another worker runs it again.
        await _finish(ctx, run, status="abandoned", error="worker stopped; retried by the next claim",
                      retry_at=await _now(ctx))
        logger.warning("schedule_run_abandoned", extra=fields)
        return
    except Exception as exc:
        failures = run.failures + 1
        delay = retry_delay(exc, failures, ctx.settings, ctx.settings.sync_retry_max_seconds)
        await _finish(ctx, run, status="failed", error=describe(exc),
                      retry_at=await _now(ctx) + timedelta(seconds=delay))
        record_schedule_run(run.action, "failed", time.monotonic() - started, 0, 0)
        logger.warning("schedule_run_failed", extra={**fields, "error": describe(exc), "retry_in": round(delay, 1)},
                       exc_info=not isinstance(exc, RunFailed) and not expected(exc))
        return
    finally:
        keeper.cancel()
    await _finish(ctx, run, status="succeeded", rows_read=rows_read, rows_changed=rows_changed, details=details)
    record_schedule_run(run.action, "succeeded", time.monotonic() - started, rows_read, rows_changed)
    logger.info("schedule_run_finished", extra={**fields, "rows_read": rows_read, "rows_changed": rows_changed})


async def _finish(ctx: SyncContext, run: ClaimedRun, **outcome) -> None:
    async with ctx.pool.connection() as conn:
        await store.finish(conn, run, ctx.worker_id, **outcome)


async def _hold_lease(ctx: SyncContext, run: ClaimedRun, work: asyncio.Task) -> None:
    """Extend the run's lease every third of it; cancel the work if it was lost."""
    lease = ctx.settings.sync_lease_seconds
    while True:
        await asyncio.sleep(max(0.5, lease / 3))
        try:
            async with ctx.pool.connection() as conn:
                held = await store.heartbeat(conn, run, ctx.worker_id, lease)
        except Exception:
            logger.exception("schedule_heartbeat_failed", extra={"schedule_id": run.schedule_id})
            continue
        if not held:
            logger.warning("schedule_lease_lost", extra={"schedule_id": run.schedule_id})
            work.cancel()
            return


async def _do(ctx: SyncContext, run: ClaimedRun) -> tuple[int, int, dict]:
    """The run's work: (rows read, rows changed, details)."""
    async with ctx.pool.connection() as conn:
        accounts = await store.active_accounts(conn, run)
    if not accounts:
        raise RunFailed("no active account to run on" if run.account_id is None
                        else f"account {run.account_id} is not active")
    if run.action == "export":
        return await _export(ctx, run, accounts)
    resources = [run.resource] if run.resource else list(REGISTRY)
    return await _sync_pass(ctx, run, [(a, r) for a in accounts for r in resources])


async def _sync_pass(ctx: SyncContext, run: ClaimedRun, targets: list[tuple[int, str]]) -> tuple[int, int, dict]:
    """Request the backfill or reconcile on the targets' tasks and wait until it is done."""
    since = parse_since(run.since)
    start = since.start(run.due_at) if since else EPOCH
    keys = pair_keys(targets)
    async with ctx.pool.connection() as conn:
        for account_id, resource in targets:
            await leases.request(conn, account_id, resource, kind=run.action, since=start)
    while True:
        async with ctx.pool.connection() as conn:
            pending, error = await store.requests_outcome(conn, keys, run.action)
        if error is not None:
            raise RunFailed(error)
        if pending == 0:
            break
        await asyncio.sleep(ctx.settings.sync_poll_seconds)
    async with ctx.pool.connection() as conn:
        read, changed = await store.sync_rows(conn, keys, run.action, run.started_at)
    return read, changed, {"since": start.isoformat(), "targets": keys}


async def _export(ctx: SyncContext, run: ClaimedRun, accounts: list[int]) -> tuple[int, int, dict]:
    """One file per (account, resource) whose window holds complete coverage."""
    resources = [run.resource] if run.resource else list(EXPORTABLE)
    since = parse_since(run.since)
    # The schedules table's check: an export names both.
    assert run.export_dir is not None and run.export_format is not None
    directory, export_format = Path(run.export_dir), run.export_format
    files, skipped, total = [], [], 0
    async with ctx.pool.connection() as conn:
        previous = {} if since else await store.last_export_ends(conn, run.schedule_id)
        for account_id in accounts:
            for resource in resources:
                key = f"{account_id}:{resource}"
                coverage = await export_store.coverage(conn, account_id, resource)
                if coverage.start is None or coverage.end is None:
                    skipped.append({"target": key, "reason": "no complete range stored yet"})
                    continue
                if since:
                    start = since.start(run.due_at)
                elif key in previous:
                    # Both bounds are inclusive: the next window starts just after the last.
                    start = datetime.fromisoformat(previous[key]) + timedelta(microseconds=1)
                else:
                    start = coverage.start
                start = max(start, coverage.start)  # only what the store holds completely
                if start > coverage.end:
                    skipped.append({"target": key, "reason": "nothing new since the last file"})
                    continue
                start, end = window_inside(coverage, resource, start, coverage.end)
                path, rows = await write_export_file(
                    conn, account_id, resource, export_format, start, end, directory,
                    batch=ctx.settings.export_batch_rows,
                )
                total += rows
                files.append({"account_id": account_id, "resource": resource, "start": start.isoformat(),
                              "end": end.isoformat(), "rows": rows, "path": str(path)})
    if not files and all(s["reason"].startswith("no complete") for s in skipped):
        raise RunFailed("the store holds no complete range of "
                        + ", ".join(s["target"] for s in skipped) + " yet")
    return total, 0, {"files": files, "skipped": skipped}
