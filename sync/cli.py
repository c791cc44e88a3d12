"""``relay worker`` and ``relay sync ...`` (plugged into ``relay`` by entry points).

- ``relay worker``: the scheduler clock plus the claim loop, until SIGTERM/SIGINT (the
  running tasks finish their current page and release their leases).
- ``relay sync backfill``: request a backfill and work on it here with a progress bar (any
  running worker helps: the request is a column of the task rows).
- ``relay sync reconcile``: re-read the covered range to catch changes outside the lookback.
- ``relay sync run-once``: run every due task once and exit (scripts and tests).
- ``relay sync status``: coverage, last success, lag and last error per account and resource.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterable
from datetime import UTC, datetime

import click
import psycopg
from psycopg import AsyncConnection

from app.db.embedded import resolve_database_url
from app.db.urls import plain_url
from app.settings import Settings
from sync import leases, state
from sync.clock import upstream_clock
from sync.pairs import pair_keys
from sync.resources import REGISTRY
from sync.worker import Worker

_DATE_FORMATS = ["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]


def _settings(ctx: click.Context) -> Settings:
    """Settings from ``relay``'s context object, or read here when run on its own."""
    root = ctx.find_root()
    if isinstance(root.obj, Settings):
        return root.obj
    from app.cli import load_settings

    root.obj = load_settings()
    return root.obj


def _setup(ctx: click.Context, process: str = "cli", **overrides) -> Settings:
    """The settings (with ``overrides``) and the process's logging, for a command that runs
    sync tasks: it stops here, in one line, when the credentials' keys are missing."""
    from app.commands import cli_keyring
    from app.logging import configure_logging

    settings = _settings(ctx)
    cli_keyring(settings)
    changes = {k: v for k, v in overrides.items() if v is not None}
    if changes:
        settings = settings.replace(**changes)
    configure_logging(settings, process, quiet=process == "cli")
    if process == "cli":
        # A one-shot command fails at once, in one line, on a database it cannot reach (its
        # worker's pool would retry for minutes).
        psycopg.connect(plain_url(resolve_database_url(settings)), connect_timeout=5).close()
    return settings


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.replace(tzinfo=UTC)


# --- relay worker ---------------------------------------------------------------------------


@click.command()
@click.option("--concurrency", type=int, default=None, help="Tasks at once (default RELAY_SYNC_WORKER_CONCURRENCY).")
@click.pass_context
def worker(ctx: click.Context, concurrency: int | None) -> None:
    """Run a sync worker: enqueue due work on a clock and run claimed tasks until stopped."""
    settings = _setup(ctx, "worker", sync_worker_concurrency=concurrency)
    asyncio.run(_work_and_dispatch(settings))


async def _work_and_dispatch(settings: Settings) -> None:
    """The sync worker and the webhook dispatcher in one process, stopped together."""
    from app.events.webhooks.dispatcher import run_dispatcher

    worker = Worker(settings)
    await asyncio.gather(
        worker.run(), run_dispatcher(settings, resolve_database_url(settings), worker.name, worker.stopping)
    )


# --- relay sync -----------------------------------------------------------------------------


@click.group()
def sync() -> None:
    """Sync the upstream into the store: backfill, reconcile, run once, status."""


def _targets(
    database_url: str, accounts: Iterable[int], resources: Iterable[str], all_: bool
) -> list[tuple[int, str]]:
    accounts, resources = list(accounts), list(resources)
    if not all_ and (not accounts or not resources):
        raise click.UsageError("give --account and --resource, or --all")
    if not accounts:
        with psycopg.connect(plain_url(database_url)) as conn:
            accounts = leases.active_account_ids(conn)
    return [(a, r) for a in accounts for r in (resources or list(REGISTRY))]


_TARGET_OPTIONS = [
    click.option("--account", "accounts", type=int, multiple=True, help="Account id (repeatable)."),
    click.option("--resource", "resources", type=click.Choice(list(REGISTRY)), multiple=True,
                 help="Resource (repeatable)."),
    click.option("--all", "all_", is_flag=True, help="Every active account (and every resource unless --resource)."),
]


def _target_options(function):
    for option in reversed(_TARGET_OPTIONS):
        function = option(function)
    return function


def _pass_command(kind: str, summary: str, since_help: str) -> click.Command:
    """``relay sync backfill`` and ``relay sync reconcile``: the same options, another pass kind."""

    @sync.command(name=kind, help=summary)
    @_target_options
    @click.option("--since", type=click.DateTime(_DATE_FORMATS), default=None, help=since_help)
    @click.option("--enqueue-only", is_flag=True, help="Only record the request; running workers do it.")
    @click.option("--progress/--no-progress", default=True, show_default=True)
    @click.pass_context
    def command(ctx, accounts, resources, all_, since, enqueue_only, progress) -> None:
        settings = _setup(ctx)
        _request_and_work(settings, kind, accounts, resources, all_, _utc(since), enqueue_only, progress)

    return command


backfill = _pass_command(
    "backfill",
    "Fill the store back to --since, resumably, paced under the upstream's rate limit.",
    "Oldest time to hold (UTC). Default: the beginning of the account's history.",
)
reconcile = _pass_command(
    "reconcile",
    "Re-read the covered range and fix rows that changed outside the lookback window.",
    "Re-read from this time (UTC). Default: the start of the coverage.",
)


def _request_and_work(settings, kind, accounts, resources, all_, since, enqueue_only, progress) -> None:
    targets = _targets(resolve_database_url(settings), accounts, resources, all_)
    if not targets:
        click.echo("no active accounts")
        return
    request_and_run(settings, kind, targets, since, enqueue_only=enqueue_only, progress=progress)
    click.echo(f"{kind} {'requested' if enqueue_only else 'complete'} for {len(targets)} task(s)")


def request_and_run(
    settings: Settings,
    kind: str,
    targets: list[tuple[int, str]],
    since: datetime | None,
    *,
    enqueue_only: bool = False,
    progress: bool = False,
) -> None:
    """Record a backfill or reconcile request on the tasks, then (unless ``enqueue_only``)
    work on those tasks here until the request is done. Incremental syncs of the same tasks
    that fall due meanwhile run too (same lease, run first in each slice)."""
    database_url = resolve_database_url(settings)
    since_value = since or datetime.fromtimestamp(0, UTC)
    asyncio.run(_request_all(database_url, targets, kind, since_value))
    if enqueue_only:
        return
    worker = Worker(settings, only=targets, enqueue=False, schedule=False,
                    done=_pending_check(targets, kind))
    if progress and kind == "backfill":
        from sync.progress import history_starts, run_with_progress

        now = asyncio.run(_upstream_now(settings))
        history = asyncio.run(history_starts(settings, database_url, targets, now))
        asyncio.run(run_with_progress(worker, database_url, targets, since_value, history))
    else:
        asyncio.run(worker.run())


async def _request_all(database_url, targets, kind, since) -> None:
    async with await AsyncConnection.connect(plain_url(database_url), autocommit=True) as conn:
        for account_id, resource in targets:
            await leases.request(conn, account_id, resource, kind=kind, since=since)


def _pending_check(targets, kind: str):
    keys = pair_keys(targets)

    async def done(conn: AsyncConnection) -> bool:
        return await leases.requests_pending(conn, keys, kind) == 0

    return done


@sync.command("run-once")
@_target_options
@click.pass_context
def run_once(ctx, accounts, resources, all_) -> None:
    """Enqueue, run every due task (and any pending backfill slice) once, then exit."""
    settings = _setup(ctx)
    database_url = resolve_database_url(settings)
    only = None
    if accounts or resources:
        only = _targets(database_url, accounts, resources, True)

    run_until_idle(settings, only)


def run_until_idle(settings: Settings, only: list[tuple[int, str]] | None = None) -> None:
    """Enqueue missing tasks, then run due tasks (of ``only``, if given) until none is due
    or running."""
    keys = None if only is None else pair_keys(only)

    async def nothing_due(conn: AsyncConnection) -> bool:
        return await leases.due_or_running(conn, keys) == 0

    asyncio.run(Worker(settings, only=only, schedule=False, done=nothing_due).run())


# --- relay sync status ---------------------------------------------------------------------

def status_rows(settings: Settings, now: int | None = None) -> list[dict]:
    """One dict per (account, resource): what ``relay sync status`` shows."""
    database_url = resolve_database_url(settings)
    if now is None:
        now = asyncio.run(_upstream_now(settings))
    with psycopg.connect(plain_url(database_url)) as conn:
        rows = state.status_rows(conn)
    out = []
    for r in rows:
        end, owner, expires = r["coverage_end"], r["lease_owner"], r["lease_expires_at"]
        leased = owner is not None and expires is not None and expires.timestamp() > time_now()
        out.append({
            "account_id": r["account_id"],
            "account_status": r["account_status"],
            "resource": r["resource"],
            "coverage_start": _iso(r["coverage_start"]),
            "coverage_end": _iso(end),
            "last_success_at": _iso(r["last_success_at"]),
            "lag_seconds": None if end is None else max(0, now - int(end.timestamp())),
            "last_error": r["last_error"],
            "last_error_at": _iso(r["last_error_at"]),
            "lease_owner": owner if leased else None,
            "due_at": _iso(r["due_at"]),
            "backfill_since": _iso(r["backfill_since"]),
            "failures": r["failures"],
            "last_run": r["last_run"],
        })
    return out


def time_now() -> float:
    return datetime.now(UTC).timestamp()


async def _upstream_now(settings: Settings) -> int:
    clock = upstream_clock(settings)
    try:
        return await clock.now()
    finally:
        await clock.aclose()


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


@sync.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--wide", is_flag=True, help="Every column, timestamps in full (wider than 100 columns).")
@click.pass_context
def status(ctx, as_json: bool, wide: bool) -> None:
    """Coverage, last success, lag and last error for each account and resource."""
    settings = _settings(ctx)
    rows = status_rows(settings)
    if as_json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    from sync.schedules.cli import listing
    from sync.schedules.store import list_rows
    from sync.status_view import print_status

    with psycopg.connect(plain_url(resolve_database_url(settings))) as conn:
        schedules = [listing(row) for row in list_rows(conn)]
    print_status(rows, wide=wide, schedules=schedules)
