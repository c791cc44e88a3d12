"""The backfill progress bar: how much of [floor, coverage end] the store holds, per task.

It reads ``sync_state`` (not the local worker's counters), so it shows the true progress
whoever does the work: this process, or other workers that claimed the same tasks.

The floor is where the account's history really begins (``history_starts``), not the
backfill's default ``since`` (1970): one upstream request per account and resource that can
be read oldest first (earnings, each posts partition) gives the oldest row; the other
resources (chargebacks, payout requests, daily link stats) cannot precede the account's
first earnings row, so that is their floor. A floor stays at ``since`` when it is later,
or when the upstream could not tell (the bar then moves as before).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from decimal import Decimal

import psycopg
from psycopg import AsyncConnection
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from app.crypto.keyring import keyring_for
from app.db.urls import plain_url
from app.settings import Settings
from app.upstream import paths
from app.upstream.client import UpstreamAccount, UpstreamClient
from sync import state
from sync.cursors import BEGINNING, field_of, iso, iso_seconds
from sync.pairs import pair_key, pair_keys
from sync.resources import REGISTRY
from sync.worker import Worker

logger = logging.getLogger(__name__)


def covered_fraction(start: datetime | None, end: datetime | None, since: datetime) -> float:
    if start is None or end is None:
        return 0.0
    span = (end - since).total_seconds()
    if span <= 0:
        return 1.0
    return max(0.0, min(1.0, (end - start).total_seconds() / span))


async def _oldest_earning(upstream: UpstreamClient, account: UpstreamAccount, now: int) -> int | None:
    """The time of the account's oldest earnings row (every type): the feed read ascending."""
    body = await upstream.get_json(account, paths.EARNINGS_TRANSACTIONS, params={
        "start_date": iso(BEGINNING), "end_date": iso(now), "order": "asc", "limit": 1,
    })
    rows = body.get("list") or []
    return iso_seconds(field_of(rows[0], "createdAt")) if rows else None


async def _oldest_post(upstream: UpstreamClient, account: UpstreamAccount) -> int | None:
    """The time of the account's oldest post over the posts partitions (feed and archives)."""
    oldest = []
    for part in REGISTRY["posts"].fixed_partitions:  # a tuple: the feed and the two archive buckets
        body = await upstream.get_json(account, paths.POSTS, params={
            **part.params, "order": "publish_date_asc", "limit": 1, "counters": False,
        })
        rows = body.get("list") or []
        if rows:
            oldest.append(int(Decimal(field_of(rows[0], "postedAtPrecise"))))
    return min(oldest, default=None)


async def _account_floors(upstream, account: UpstreamAccount, resources: set[str], now: int) -> dict[str, int]:
    earliest = await _oldest_earning(upstream, account, now)
    floors = {name: earliest for name in resources if earliest is not None}
    if "posts" in resources:
        post = await _oldest_post(upstream, account)
        if post is not None:
            floors["posts"] = post
        else:
            floors.pop("posts", None)
    return floors


async def history_starts(
    settings: Settings, database_url: str, targets: list[tuple[int, str]], now: int
) -> dict[str, datetime]:
    """Per task key (``account:resource``), the time of the account's oldest row of that
    resource on the upstream; a task the upstream could not answer for is left out."""
    accounts: dict[int, set[str]] = {}
    for account_id, resource in targets:
        accounts.setdefault(account_id, set()).add(resource)
    with psycopg.connect(plain_url(database_url)) as conn:
        tokens: dict[int, str] = dict(conn.execute(
            "SELECT id, upstream_token FROM accounts WHERE id = ANY(%s)", (list(accounts),)
        ).fetchall())
    keyring = keyring_for(settings)
    floors: dict[str, datetime] = {}
    async with UpstreamClient(settings) as upstream:
        for account_id, resources in accounts.items():
            if account_id not in tokens:
                continue
            account = UpstreamAccount(account_id, keyring.decrypt(tokens[account_id]))
            try:
                found = await _account_floors(upstream, account, resources, now)
            except Exception as exc:  # the bar is a view: without a floor it moves as before
                logger.warning("backfill_history_unknown", extra={"account_id": account_id, "error": str(exc)})
                continue
            for resource, seconds in found.items():
                floors[pair_key(account_id, resource)] = datetime.fromtimestamp(seconds, UTC)
    return floors


async def run_with_progress(
    worker: Worker, database_url: str, targets: list[tuple[int, str]], since: datetime,
    history: dict[str, datetime] | None = None,
) -> None:
    """Run ``worker`` with one bar per task, each over [max(since, the task's history start),
    coverage end]."""
    keys = pair_keys(targets)
    floors = {key: max(since, (history or {}).get(key, since)) for key in keys}
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>5.1f}%"),
               TimeElapsedColumn())
    with Progress(*columns) as progress:
        bars = {key: progress.add_task(f"account {key.replace(':', ' ')}", total=1.0) for key in keys}

        async def refresh() -> None:
            async with await AsyncConnection.connect(plain_url(database_url), autocommit=True) as conn:
                while True:
                    for row in await state.coverage_of(conn, keys):
                        key = pair_key(row.account_id, row.resource)
                        progress.update(bars[key], completed=covered_fraction(
                            row.coverage_start, row.coverage_end, floors[key]))
                    await asyncio.sleep(0.5)

        watcher = asyncio.create_task(refresh())
        try:
            await worker.run()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        for bar in bars.values():
            progress.update(bar, completed=1.0)
