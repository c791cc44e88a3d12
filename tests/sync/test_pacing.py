"""Backfill pacing: the limiter keeps the average rate and the burst it is given."""

from __future__ import annotations

import asyncio
import contextlib
import time

from sync.pacing import backfill_pacer


def test_rate_zero_is_unpaced():
    assert isinstance(backfill_pacer(0), contextlib.nullcontext)


def test_a_burst_is_let_through_then_the_limiter_is_full():
    async def scenario() -> tuple[bool, bool]:
        # A slow refill (one request per 100 s): only the burst may pass without waiting.
        pacer = backfill_pacer(0.01, burst=3)
        for _ in range(3):
            async with pacer:
                pass
        return pacer.has_capacity(), backfill_pacer(0.01, burst=3).has_capacity()

    full_after_burst, fresh_has_room = asyncio.run(scenario())
    assert fresh_has_room
    assert not full_after_burst


def test_requests_past_the_burst_are_spaced_at_the_rate():
    async def scenario() -> float:
        pacer = backfill_pacer(20)  # 20 per second, burst 20
        start = time.monotonic()
        for _ in range(26):
            async with pacer:
                pass
        return time.monotonic() - start

    # 20 pass at once, the next 6 one every 50 ms: at least ~0.3 s (a lower bound only:
    # a busy machine may make it slower, never faster).
    assert asyncio.run(scenario()) >= 6 * 0.05 * 0.9
