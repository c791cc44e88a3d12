"""The one mutable object of a running sandbox, reachable from every handler.

Handlers get it as the ``sandbox`` dependency (or ``request.app.state.sandbox``). It holds
the config, the clock, the account registry (sizes, rejected credentials), the fault
controller, the rate limiter, generation counters and a ``scratch`` dict for plug-ins that
keep mutable state (e.g. read notifications); :meth:`reset` clears all of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sandbox.config import SandboxConfig
from sandbox.core.accounts import AccountProfile, AccountRegistry
from sandbox.core.clock import SandboxClock
from sandbox.core.faults import FaultController
from sandbox.core.ratelimit import RateLimiter
from sandbox.core.requests import RequestCounters
from sandbox.core.timefmt import DAY

if TYPE_CHECKING:  # imported when first used (world): the generators' modules load on demand
    from sandbox.domain.world import AccountWorld


class SandboxState:
    # Ground-truth functions by name (GET /_sandbox/truth/...), set by create_sandbox_app.
    truth_functions: dict[str, Callable[..., Any]]

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.seed = config.seed
        self.clock = SandboxClock(config.clock_start, config.clock_frozen)
        self.accounts = AccountRegistry(
            AccountProfile(earnings=config.default_earnings, history_days=config.default_history_days)
        )
        self.faults = FaultController(config.seed, config.faults)
        self.limiter = RateLimiter(config.rate_limit_rps, config.rate_limit_burst)
        # Instrumentation: rows and keys generated per resource (see GET /_sandbox/stats).
        self.stats: Counter[str] = Counter()
        # Upstream requests per account and resource (GET /_sandbox/requests[/{id}]).
        self.requests = RequestCounters()
        self.scratch: dict = {}
        self.reset_hooks: list[Callable[[], None]] = []
        self._worlds: dict[int, AccountWorld] = {}

    # --- time and sizing -------------------------------------------------------
    def now_s(self) -> int:
        return self.clock.now_s()

    def profile(self, account_id: int) -> AccountProfile:
        return self.accounts.profile(account_id)

    def history_start(self, account_id: int) -> int:
        """First second of the account's history: ``epoch - history_days``."""
        return self.config.epoch - int(self.profile(account_id).history_days * DAY)

    def world(self, account_id: int) -> AccountWorld:
        """The account's generators (timelines, cached constants); rebuilt when resized."""
        from sandbox.domain.world import AccountWorld

        key = (account_id, self.accounts.version)
        world = self._worlds.get(account_id)
        if world is None or world.version_key != key:
            world = AccountWorld(self, account_id, key)
            self._worlds[account_id] = world
        return world

    # --- control ---------------------------------------------------------------
    def reset(self, *, clock: bool = True, accounts: bool = True, faults: bool = True) -> None:
        if faults:
            self.faults.reset()
            self.limiter.configure(self.config.rate_limit_rps, self.config.rate_limit_burst)
        if accounts:
            self.accounts.reset()
            self._worlds.clear()
            self.scratch.clear()
            for hook in self.reset_hooks:
                hook()
        if clock:
            self.clock.reset()
        self.stats.clear()
        self.requests.clear()
