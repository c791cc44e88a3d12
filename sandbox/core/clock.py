"""The sandbox clock: real time plus an offset, or frozen at a chosen instant.

Rows are visible only when their time is at or before ``clock.now()``, so moving the clock
makes new transactions, posts and chargebacks appear and pending earnings settle.
Tests freeze it so that the same request gives the same body.
"""

from __future__ import annotations

import time


class SandboxClock:
    def __init__(self, start: float | None = None, frozen: bool = False) -> None:
        self._initial = (start, frozen)
        self._start(start, frozen)

    def _start(self, start: float | None, frozen: bool) -> None:
        self._offset = 0.0 if start is None else start - time.time()
        self._frozen_at: float | None = None
        if frozen:
            self._frozen_at = self.now()

    def now(self) -> float:
        """Current sandbox time, unix seconds (float)."""
        if self._frozen_at is not None:
            return self._frozen_at
        return time.time() + self._offset

    def now_s(self) -> int:
        """Current sandbox time, whole unix seconds (rows are visible when t <= now_s())."""
        return int(self.now())

    @property
    def frozen(self) -> bool:
        return self._frozen_at is not None

    def set(self, when: float | None = None, frozen: bool | None = None) -> None:
        """Jump to ``when`` (keeps running unless frozen) and/or freeze or unfreeze."""
        target = self.now() if when is None else float(when)
        freeze = self.frozen if frozen is None else frozen
        self._offset = target - time.time()
        self._frozen_at = target if freeze else None

    def advance(self, seconds: float) -> None:
        self.set(self.now() + seconds)

    def reset(self) -> None:
        self._start(*self._initial)

    def describe(self) -> dict:
        from sandbox.core.timefmt import iso

        now = self.now()
        return {"now": now, "iso": iso(int(now)), "frozen": self.frozen}
