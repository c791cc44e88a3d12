"""The fetch pipeline: partitions fetched concurrently, pages written one at a time.

Each partition's fetcher follows its own cursor and hands pages to one writer through a
bounded queue: page n+1 is on the wire while page n is written, and the queue bound caps
memory. A partition's pages arrive in order, so its committed cursor always names the page
after the last one written.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sync.coverage import PartitionPass
from sync.cursors import Position


@dataclass
class Page:
    work: PartitionPass
    rows: list
    next_position: Position
    oldest: int | None


async def pump(
    work: list[PartitionPass],
    fetch: Callable[[PartitionPass], Awaitable[Page]],
    write: Callable[[Page], Awaitable[None]],
    *,
    prefetch: int,
    halted: Callable[[], bool],
) -> bool:
    """Fetch every pass's pages (``fetch`` one page at the pass's position) and ``write``
    them in arrival order until the passes end or ``halted()``. True when all completed.
    A failure of a fetcher or the writer cancels the rest and is raised."""
    queue: asyncio.Queue[Page] = asyncio.Queue(prefetch)
    open_passes = {w.partition.name for w in work}

    async def follow(w: PartitionPass) -> None:
        while not halted():
            page = await fetch(w)
            await queue.put(page)
            if page.next_position is None:
                return
            w.position = page.next_position

    async def produce() -> None:
        try:
            async with asyncio.TaskGroup() as group:
                for w in work:
                    group.create_task(follow(w))
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
            await write(page)
            if page.next_position is None:
                open_passes.discard(page.work.partition.name)
        await producer  # raises the fetchers' failure, if any
    except BaseException:
        producer.cancel()
        with contextlib.suppress(BaseException):
            await producer
        raise
    return not open_passes
