"""The coalescer: concurrent calls go together, a lone call goes at once, and a batch that
breaks on one item is retried item by item (pure logic: a fake batch runner)."""

from __future__ import annotations

import asyncio

import pytest

from app.db.coalesce import Coalescer
from tests.fixtures.net import wait_for_async


class Runner:
    """Doubles each item, one batch at a time; items in ``poison`` break their batch."""

    def __init__(self, poison: frozenset[int] = frozenset()) -> None:
        self.batches: list[list[int]] = []
        self.poison = poison

    async def __call__(self, items: list[int]) -> list[int]:
        self.batches.append(list(items))
        await asyncio.sleep(0.01)  # the behaviour faked: a round trip (the next callers queue meanwhile)
        if self.poison & set(items):
            raise ValueError(f"poisoned batch {items}")
        return [item * 2 for item in items]


async def test_a_lone_call_runs_at_once_and_concurrent_ones_share_batches():
    runner = Runner()
    batches = Coalescer(runner, max_batch=8)

    assert await batches(1) == 2
    results = await asyncio.gather(*(batches(i) for i in range(20)))

    assert results == [i * 2 for i in range(20)]
    assert runner.batches[0] == [1]
    assert len(runner.batches) < 21 and max(len(b) for b in runner.batches) <= 8


async def test_a_failed_batch_is_retried_alone_so_only_the_culprit_fails():
    runner = Runner(poison=frozenset({13}))
    batches = Coalescer(runner, retry_alone=lambda exc: isinstance(exc, ValueError))

    results = await asyncio.gather(*(batches(i) for i in (10, 11, 12, 13, 14)), return_exceptions=True)

    assert results[:3] == [20, 22, 24] and results[4] == 28
    assert isinstance(results[3], ValueError)
    assert [13] in runner.batches  # the culprit ran alone


async def test_without_retry_every_item_of_a_failed_batch_gets_the_error():
    runner = Runner(poison=frozenset({2}))
    batches = Coalescer(runner)

    # 0 runs alone at once; 1, 2 and 3 queue behind it and leave together.
    results = await asyncio.gather(*(batches(i) for i in (0, 1, 2, 3)), return_exceptions=True)

    assert results[0] == 0 and runner.batches == [[0], [1, 2, 3]]
    assert all(isinstance(r, ValueError) for r in results[1:])


async def test_a_lone_call_runs_in_its_own_task():
    tasks: list[asyncio.Task | None] = []

    async def record(items: list[int]) -> list[int]:
        tasks.append(asyncio.current_task())
        return items

    batches = Coalescer(record)

    async def call() -> tuple[int, asyncio.Task | None]:
        return await batches(7), asyncio.current_task()

    result, caller = await asyncio.ensure_future(call())

    assert result == 7 and tasks == [caller]  # no batch task between the caller and its statement
    assert batches.idle


async def test_close_cancels_whoever_still_waits():
    started = asyncio.Event()

    async def stuck(items: list[int]) -> list[int]:
        started.set()
        await asyncio.sleep(60)  # a batch that never ends (close cancels it)
        return items

    batches = Coalescer(stuck)
    waiting = asyncio.ensure_future(batches(1))
    await started.wait()
    await batches.close()
    with pytest.raises(asyncio.CancelledError):
        await waiting


class Overlap(Runner):
    """A runner that records how many of its batches ran at the same time."""

    def __init__(self) -> None:
        super().__init__()
        self.running = 0
        self.most = 0

    async def __call__(self, items: list[int]) -> list[int]:
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            return await super().__call__(items)
        finally:
            self.running -= 1


async def test_a_second_batch_leaves_beside_the_first_once_split_at_items_wait():
    runner = Overlap()
    batches = Coalescer(runner, max_batch=8, in_flight=3, split_at=4)

    results = await asyncio.gather(*(batches(i) for i in range(40)))

    assert results == [i * 2 for i in range(40)]
    assert runner.most == 3  # never more than in_flight
    assert sorted(item for batch in runner.batches for item in batch) == list(range(40))


async def test_fewer_waiting_than_split_at_share_the_next_statement():
    release = asyncio.Event()
    batches_run: list[list[int]] = []

    async def held(items: list[int]) -> list[int]:  # every batch waits for the test's word
        batches_run.append(list(items))
        await release.wait()
        return [item * 2 for item in items]

    batches = Coalescer(held, max_batch=8, in_flight=3, split_at=4)
    first = asyncio.ensure_future(batches(0))
    await wait_for_async(lambda: batches_run == [[0]], 5, "its batch in flight", every=0.0005)
    waiting = [asyncio.ensure_future(batches(i)) for i in (1, 2, 3)]  # 3 wait: below split_at
    await asyncio.sleep(0)  # each has queued its item
    release.set()

    assert [await first, *await asyncio.gather(*waiting)] == [0, 2, 4, 6]
    assert batches_run == [[0], [1, 2, 3]]


async def test_close_cancels_every_batch_in_flight():
    runner = Overlap()
    batches = Coalescer(runner, max_batch=2, in_flight=2, split_at=1)
    calls = [asyncio.ensure_future(batches(i)) for i in range(6)]
    await wait_for_async(lambda: runner.running == 2, 5, "two batches in flight", every=0.0005)

    await batches.close()

    assert runner.most == 2
    assert all(call.cancelled() for call in calls)
