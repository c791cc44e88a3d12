"""Sandbox configuration: the Settings fields that exist plus sandbox-only defaults.

Built from ``app.settings.Settings`` (the ``RELAY_SANDBOX_*`` variables); most of it can
also be changed at run time through the control API, or with ``relay sandbox`` options.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from sandbox.core.timefmt import DAY


@dataclass(frozen=True, slots=True)
class FaultRates:
    """Random faults applied to every upstream request, drawn from a seeded sequence."""

    latency_ms: int = 0  # added to every request
    error_rate: float = 0.0  # fraction answered 5xx (503)
    rate_limit_rate: float = 0.0  # fraction answered 429 with Retry-After
    timeout_rate: float = 0.0  # fraction that hang ``timeout_seconds`` before answering
    truncate_rate: float = 0.0  # fraction whose body is cut mid-way
    retry_after: int = 1  # Retry-After (seconds) of random 429s
    timeout_seconds: float = 30.0  # longer than the client's read timeout (15 s)


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    host: str = "127.0.0.1"
    port: int = 8700
    seed: int = 7
    # The sandbox "present" used for sizing: an account's configured rows lie in
    # [epoch - history_days, epoch); later rows keep appearing at the same rate.
    # Default: the start of the UTC day the sandbox started (stable for a run).
    epoch: int = field(default_factory=lambda: int(time.time()) // DAY * DAY)
    default_earnings: int = 3000  # earnings rows per account in the history
    default_history_days: float = 365.0
    rate_limit_rps: float = 0.0  # per-account requests per second; 0 = off
    rate_limit_burst: int = 0  # bucket size; 0 = same as rps (at least 1)
    faults: FaultRates = field(default_factory=FaultRates)
    clock_start: float | None = None  # None: follow real time
    clock_frozen: bool = False

    @classmethod
    def from_settings(cls, settings, **overrides) -> SandboxConfig:
        faults = FaultRates(
            latency_ms=settings.sandbox_latency_ms,
            error_rate=settings.sandbox_error_rate,
            rate_limit_rate=settings.sandbox_rate_limit_rate,
            timeout_rate=settings.sandbox_timeout_rate,
            truncate_rate=settings.sandbox_truncate_rate,
            timeout_seconds=settings.sandbox_timeout_seconds,
        )
        base = cls(
            host=settings.sandbox_host,
            port=settings.sandbox_port,
            seed=settings.sandbox_seed,
            default_earnings=settings.sandbox_earnings,
            default_history_days=settings.sandbox_history_days,
            rate_limit_rps=settings.sandbox_rate_limit_rps,
            rate_limit_burst=settings.sandbox_rate_limit_burst,
            faults=faults,
        )
        if settings.sandbox_epoch is not None:
            base = replace(base, epoch=settings.sandbox_epoch)
        return replace(base, **overrides)
