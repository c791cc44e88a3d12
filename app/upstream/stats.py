"""Counts of upstream calls: per block (a sync run, a request) and in the process metrics."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

from app.metrics import record_call


@dataclass(slots=True)
class UpstreamStats:
    """Counts of upstream calls. ``retries`` is ``attempts`` minus first tries."""

    calls: int = 0
    attempts: int = 0
    retries: int = 0
    failures: int = 0

    def add(self, *, attempts: int, failed: bool) -> None:
        self.calls += 1
        self.attempts += attempts
        self.retries += max(0, attempts - 1)
        self.failures += int(failed)


# A tuple so tracking nests (a whole sync run, and one page inside it). Tasks created
# inside a ``track_upstream_calls`` block inherit the context, so concurrent page fetches
# add to the same objects.
_tracked_stats: contextvars.ContextVar[tuple[UpstreamStats, ...]] = contextvars.ContextVar(
    "upstream_tracked_stats", default=()
)


class track_upstream_calls:  # noqa: N801 - used as a function: ``with track_upstream_calls() as stats:``
    """Count the upstream calls made inside the block (and by tasks it starts).

    The sync engine wraps a run in it and records ``stats.retries`` in the run log; the API
    wraps every request (a class, not a generator: it runs on every request).
    """

    __slots__ = ("_stats", "_token")

    def __enter__(self) -> UpstreamStats:
        self._stats = UpstreamStats()
        self._token = _tracked_stats.set((*_tracked_stats.get(), self._stats))
        return self._stats

    def __exit__(self, *exc: object) -> None:
        _tracked_stats.reset(self._token)


def record_upstream_call(*, attempts: int, failed: bool) -> None:
    """Count one finished call in the metrics and in every enclosing tracking block."""
    record_call(attempts=attempts, failed=failed)
    for stats in _tracked_stats.get():
        stats.add(attempts=attempts, failed=failed)
