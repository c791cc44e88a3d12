"""One account's generators, built from its profile and cached on the SandboxState."""

from __future__ import annotations

from functools import cached_property

from sandbox.core.timefmt import DAY
from sandbox.domain.earnings import EarningsLedger
from sandbox.domain.links import TrackingLinks
from sandbox.domain.payouts import Chargebacks, PayoutRequests
from sandbox.domain.posts import Posts


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

    # Default sizes derive from the earnings size and the history length.
    @cached_property
    def chargebacks(self) -> Chargebacks:
        rows = self.profile.size("chargebacks", max(3, self.profile.earnings // 200))
        return Chargebacks(self.seed, self.account_id, self.start, self.span, rows, self.earnings)

    @cached_property
    def payout_requests(self) -> PayoutRequests:
        rows = self.profile.size("payout_requests", max(1, int(self.profile.history_days // 7)))
        return PayoutRequests(self.seed, self.account_id, self.start, self.span, rows)

    @cached_property
    def posts(self) -> Posts:
        rows = self.profile.size("posts", min(2000, max(20, self.profile.earnings // 20)))
        return Posts(self.seed, self.account_id, self.start, self.span, rows, ties=self.profile.allows_ties())

    @cached_property
    def tracking_links(self) -> TrackingLinks:
        rows = self.profile.size("tracking_links", 12)
        return TrackingLinks(self.seed, self.account_id, self.start, self.span, rows)

    def describe(self) -> dict:
        """Row counts in the history (before the epoch) per resource."""
        return {
            "sizes": {
                "earnings_lanes": [tl.n for tl in self.earnings.timelines],
                "chargebacks": self.chargebacks.timeline.n,
                "payout_requests": self.payout_requests.timeline.n,
                "posts": self.posts.timeline.n,
                "tracking_links": self.tracking_links.timeline.n,
            }
        }
