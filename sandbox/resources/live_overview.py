"""Earnings overview (live only): the dashboard cards of one date window.

Money comes from the account's earnings ledger (the same rows the synced earnings feed
serves), so the overview and the feed agree; counts and views come from the daily activity
of :mod:`sandbox.resources.live_common`. Every ``delta`` compares the window with the window
of equal length just before it.
"""

from __future__ import annotations

from litestar import get

from app.upstream import paths
from sandbox.core.params import enum_param, window
from sandbox.core.timefmt import iso, month_start, next_month_start
from sandbox.domain.charts import buckets, delta, is_daily
from sandbox.domain.earnings import lanes_for
from sandbox.resources.live_common import activity_sums
from sandbox.resources.live_promotions import promos_in
from sandbox.state import SandboxState

BY = ("earnings", "posts", "streams", "visitors", "massMessages", "story", "promo")
# Which earnings lanes each card's money is made of.
CARD_LANES = {
    "posts": lanes_for("post", None) + lanes_for("tips", "post_all"),
    "streams": lanes_for("stream", None) + lanes_for("tips", "stream"),
    "massMessages": lanes_for("chat_messages", None),
    "story": lanes_for("tips", "story"),
}
ALL_LANES = lanes_for(None, None)
# (count field, views field) of the activity counters behind each content card.
CARD_ACTIVITY = {
    "posts": ("posts", "post_views"),
    "streams": ("stream_minutes", "stream_views"),
    "massMessages": ("mass_messages", "mass_message_views"),
    "story": ("stories", "story_views"),
}
PROMO_LOOKBACK = 31 * 86400  # promos run at most 30 days: older ones have no claims left


class Overview:
    """The window, its predecessor and cached sums of both."""

    def __init__(self, sandbox, account_id: int, lo: int, hi: int, now: int) -> None:
        self.sandbox, self.account_id, self.now = sandbox, account_id, now
        self.lo, self.hi = lo, hi
        self.prev_lo, self.prev_hi = lo - (hi - lo + 1), lo - 1
        self.ledger = sandbox.world(account_id).earnings
        self.activity = activity_sums(sandbox, account_id, lo, hi, now)
        self.prev_activity = activity_sums(sandbox, account_id, self.prev_lo, self.prev_hi, now)

    def money(self, lanes, lo: int, hi: int) -> tuple[int, int]:
        _, net, gross = self.ledger.sums(lanes, lo, hi, self.now)
        return net, gross

    def money_card(self, lanes) -> dict:
        net, gross = self.money(lanes, self.lo, self.hi)
        prev_net, _ = self.money(lanes, self.prev_lo, self.prev_hi)
        return {"total": net / 100, "gross": gross / 100, "delta": delta(net, prev_net)}

    def counter(self, field: str) -> dict:
        return {"total": self.activity[field], "delta": delta(self.activity[field], self.prev_activity[field])}

    def chart(self, value_of) -> list[dict]:
        """``{date, count}`` per bucket (daily up to 90 days, else monthly)."""
        return [
            {"date": iso(label), "count": value_of(first, last)}
            for label, first, last in buckets(self.lo, self.hi, is_daily(self.lo, self.hi))
        ]

    # --- cards ---------------------------------------------------------------------
    def earning(self) -> dict:
        return self.money_card(ALL_LANES)

    def content(self, card: str) -> dict:
        lanes = CARD_LANES[card]
        count_field, views_field = CARD_ACTIVITY[card]
        count = self.counter(count_field)
        if card == "streams":
            count["total"] = f"{count['total']}m"  # the upstream shows stream time as minutes
        earnings = self.money_card(lanes)
        return {
            "hasStatistic": bool(self.activity[count_field] or earnings["gross"]),
            "count": count,
            "views": self.counter(views_field),
            "earnings": earnings,
            "chartData": self.chart(lambda first, last: self.money(lanes, first, last)[0] / 100),
        }

    def visitors(self, card: bool) -> dict:
        visitors = self.activity["guests"] + self.activity["users"] + self.activity["subscribers"]
        prev = self.prev_activity["guests"] + self.prev_activity["users"] + self.prev_activity["subscribers"]
        out = {
            "hasStatistic": visitors > 0,
            "count": self.counter("visits"),
            "visitors": {"total": visitors, "delta": delta(visitors, prev)},
            "subscriptions": {"new": self.counter("subs_new"), "renew": self.counter("subs_renew")},
        }
        if not card:
            out["chartData"] = self.chart(self._visitors_between)
        return out

    def _visitors_between(self, first: int, last: int) -> int:
        sums = activity_sums(self.sandbox, self.account_id, first, last, self.now)
        return sums["guests"] + sums["users"] + sums["subscribers"]

    def promo(self) -> dict:
        """Promo earnings: claims made in the window times each promo's price (monthly chart)."""
        promos = promos_in(self.sandbox, self.account_id, self.prev_lo - PROMO_LOOKBACK, min(self.hi, self.now))

        def cents(lo: int, hi: int) -> tuple[int, int]:
            hi = min(hi, self.now)
            claims = [p.claims_between(lo, hi) for p in promos] if hi >= lo else []
            return sum(c * round(p.price * 100) for c, p in zip(claims, promos, strict=True)), sum(claims)

        gross, claims = cents(self.lo, self.hi)
        prev_gross, prev_claims = cents(self.prev_lo, self.prev_hi)
        net, prev_net = gross * 80 // 100, prev_gross * 80 // 100  # the platform keeps 20%
        monthly = []
        cursor = month_start(self.lo)
        while cursor <= self.hi:
            following = next_month_start(cursor)
            month_gross, _ = cents(max(cursor, self.lo), min(following - 1, self.hi))
            monthly.append({"date": iso(cursor), "count": month_gross * 80 // 100 / 100})
            cursor = following
        return {
            "hasStatistic": bool(promos),
            "earnings": {"total": net / 100, "gross": gross / 100, "delta": delta(net, prev_net)},
            "claims": {"total": claims, "delta": delta(claims, prev_claims)},
            "chartData": monthly,
        }


@get(paths.route(paths.EARNINGS_OVERVIEW), sync_to_thread=False)
def earnings_overview(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    start_date: str | None = None,
    end_date: str | None = None,
    by: str | None = None,
) -> dict:
    section = enum_param("by", by, BY)
    lo, hi = window(start_date, end_date, now)
    ov = Overview(sandbox, account_id, lo, hi, now)
    if section is None:
        return {
            "earning": ov.earning(),
            "posts": ov.content("posts"),
            "streams": ov.content("streams"),
            "visitors": ov.visitors(card=False),
            "massMessages": ov.content("massMessages"),
        }
    if section == "earnings":
        return {"earning": ov.earning()}
    if section == "visitors":
        return {"visitors": ov.visitors(card=True)}
    if section == "promo":
        return {"promo": ov.promo()}
    return {section: ov.content(section)}


ROUTES = [earnings_overview]
