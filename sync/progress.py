"""The backfill progress bar: how much of [since, coverage end] the store holds, per task.

It reads ``sync_state`` (not the local worker's counters), so it shows the true progress
whoever does the work: this process, or other workers that claimed the same tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime

from psycopg import AsyncConnection
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from app.db.urls import plain_url
from sync import state
from sync.worker import Worker

def covered_fraction(start: datetime | None, end: datetime | None, since: datetime) -> float:
    if start is None or end is None:
        return 0.0
    span = (end - since).total_seconds()
    if span <= 0:
        return 1.0
    return max(0.0, min(1.0, (end - start).total_seconds() / span))


async def run_with_progress(
    worker: Worker, database_url: str, targets: list[tuple[int, str]], since: datetime
) -> None:
    keys = [f"{a}:{r}" for a, r in targets]
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>5.1f}%"),
               TimeElapsedColumn())
    with Progress(*columns) as progress:
        bars = {key: progress.add_task(f"account {key.replace(':', ' ')}", total=1.0) for key in keys}

        async def refresh() -> None:
            async with await AsyncConnection.connect(plain_url(database_url), autocommit=True) as conn:
                while True:
                    for row in await state.coverage_of(conn, keys):
                        floor = max(since, datetime.fromtimestamp(0, UTC))
                        progress.update(bars[f"{row.account_id}:{row.resource}"],
                                        completed=covered_fraction(row.coverage_start, row.coverage_end, floor))
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
