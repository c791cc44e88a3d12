"""Pacing of backfill requests: a token bucket shared by every task of one process.

The upstream client already honours 429 and Retry-After; pacing keeps a long backfill
under the upstream's rate limit in the first place, so that the incremental syncs and the
API's live calls, which share the organization's limit, keep their share.
"""

from __future__ import annotations

import asyncio
import time


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up; ``rate`` 0 = unpaced."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = max(1.0, burst if burst is not None else rate)
        self._tokens = self.burst
        self._updated = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        if self.rate <= 0:
            return
        # One waiter at a time keeps the order fair and the arithmetic simple.
        async with self._lock:
            while True:
                now = time.monotonic()
                self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate)
                self._updated = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                await asyncio.sleep((1 - self._tokens) / self.rate)
