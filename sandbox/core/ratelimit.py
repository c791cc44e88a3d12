"""The sandbox's own per-account rate limit: a token bucket on real (monotonic) time."""

from __future__ import annotations

import math
import time


class RateLimiter:
    def __init__(self, rps: float = 0.0, burst: int = 0) -> None:
        self.configure(rps, burst)

    def configure(self, rps: float, burst: int = 0) -> None:
        self.rps = float(rps)
        self.burst = float(burst or max(1.0, self.rps))
        self._buckets: dict[object, tuple[float, float]] = {}

    def check(self, key: object) -> int | None:
        """Take one token; None when allowed, else the Retry-After seconds (>= 1)."""
        if self.rps <= 0:
            return None
        now = time.monotonic()
        tokens, last = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rps)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            return None
        self._buckets[key] = (tokens, now)
        return max(1, math.ceil((1.0 - tokens) / self.rps))

    def describe(self) -> dict:
        return {"rps": self.rps, "burst": self.burst}
