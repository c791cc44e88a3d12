"""Per-account circuit breaker of the upstream client: fail fast after repeated failures."""

from __future__ import annotations

import enum
import time
from collections.abc import Callable


class BreakerState(enum.Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class Permit(enum.Enum):
    """What the breaker allows a call: go, go as the one half-open trial, or fail fast."""

    GO = "go"
    TRIAL = "trial"
    REFUSED = "refused"


class CircuitBreaker:
    """Per-account breaker over *calls* (not attempts: a call already retries).

    Closed: calls go; ``failure_threshold`` consecutive failed calls open it.
    Open: calls are refused for ``reset_after`` seconds.
    Half-open: one trial call goes, the others are refused; its success closes the
    breaker, its failure opens it for another ``reset_after``.
    """

    def __init__(
        self,
        failure_threshold: int,
        reset_after: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failure_threshold = failure_threshold
        self.reset_after = reset_after
        self._clock = clock
        self.state = BreakerState.CLOSED
        self.consecutive_failures = 0
        self._opened_at = 0.0
        self._trial_in_flight = False

    def acquire(self) -> Permit:
        if self.state is BreakerState.OPEN:
            if self.seconds_until_trial() > 0:
                return Permit.REFUSED
            self.state = BreakerState.HALF_OPEN
            self._trial_in_flight = False
        if self.state is BreakerState.HALF_OPEN:
            if self._trial_in_flight:
                return Permit.REFUSED
            self._trial_in_flight = True
            return Permit.TRIAL
        return Permit.GO

    def seconds_until_trial(self) -> float:
        if self.state is not BreakerState.OPEN:
            return 0.0
        return max(0.0, self._opened_at + self.reset_after - self._clock())

    def record_success(self) -> None:
        """The upstream answered (any final answer counts: it is up)."""
        self.state = BreakerState.CLOSED
        self.consecutive_failures = 0
        self._trial_in_flight = False

    def record_failure(self) -> bool:
        """A call ended unavailable. Returns True when this failure opened the breaker."""
        self.consecutive_failures += 1
        if self.state is BreakerState.HALF_OPEN or (
            self.state is BreakerState.CLOSED
            and self.consecutive_failures >= self.failure_threshold
        ):
            self.state = BreakerState.OPEN
            self._opened_at = self._clock()
            self._trial_in_flight = False
            return True
        return False  # already open (a call that started before it opened): keep its timer

    def release_trial(self) -> None:
        """The trial ended without an outcome (cancelled): let another call try."""
        if self.state is BreakerState.HALF_OPEN:
            self._trial_in_flight = False
