"""One account's generators, built from its profile and cached on the SandboxState."""

from __future__ import annotations

from functools import cached_property

from sandbox.core.timefmt import DAY
from sandbox.domain.earnings import EarningsLedger


class AccountWorld:
    def __init__(self, state, account_id: int, version_key) -> None:
        self.state = state
        self.seed = state.seed
        self.account_id = account_id
        self.version_key = version_key
        self.profile = state.profile(account_id)
        self.start = state.history_start(account_id)
        self.span = max(1, int(self.profile.history_days * DAY))

    @cached_property
    def earnings(self) -> EarningsLedger:
        return EarningsLedger(
            self.seed, self.account_id, self.start, self.span, self.profile.earnings, self.state.stats
        )

    def describe(self) -> dict:
        return {"earnings_lanes": [tl.n for tl in self.earnings.timelines]}
