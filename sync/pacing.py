"""Pacing of backfill requests: one limiter shared by every task of one process.

The upstream client already honours 429 and Retry-After; pacing keeps a long backfill
under the upstream's rate limit in the first place, so that the incremental syncs and the
API's live calls, which share the organization's limit, keep their share.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractAsyncContextManager

from aiolimiter import AsyncLimiter


def backfill_pacer(rate: float, burst: float | None = None) -> AbstractAsyncContextManager:
    """``async with`` it before each paced request: ``rate`` requests per second on average,
    at most ``burst`` (default: one second's worth, at least 1) back to back. ``rate`` 0:
    unpaced (a context that never waits)."""
    if rate <= 0:
        return contextlib.nullcontext()
    burst = max(1.0, burst if burst is not None else rate)
    return AsyncLimiter(burst, burst / rate)
