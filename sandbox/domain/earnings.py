"""Earnings transactions: nine lanes (one per type / tips source) merged into one feed.

Each lane is a :class:`~sandbox.core.timeline.Timeline` with its share of the account's
rows, so a query by ``type`` (and ``tipsSource``) pages one or a few lanes directly and the
unfiltered feed is their (createdAt, id) merge. Row i of a lane is a pure function of
(seed, account, lane, i). Amounts are drawn in cents, so net = gross - fee - vat - tax -
media tax holds exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY, iso
from sandbox.core.timeline import Timeline
from sandbox.core.users import PROFILE, fan_id, fan_pool_size, user_link, user_summary

ID_BASE = 1_000_000_000_000  # 13-digit ids: string order equals numeric order
STRIDE = 16

TYPES = ("subscribes", "tips", "post", "chat_messages", "stream")
TIPS_SOURCES = ("profile", "post_all", "chat", "stream", "story")
# Lanes as (type, tips source, share of the account's rows); the lane number is the position.
LANES = (
    ("subscribes", None, 0.35),
    ("tips", "profile", 0.06),
    ("tips", "post_all", 0.05),
    ("tips", "chat", 0.07),
    ("tips", "stream", 0.03),
    ("tips", "story", 0.02),
    ("post", None, 0.17),
    ("chat_messages", None, 0.20),
    ("stream", None, 0.05),
)
# The earnings chart's ``by`` values, as the lanes they sum.
CHART_BY = {
    "total": tuple(range(len(LANES))),
    **{t: tuple(k for k, lane in enumerate(LANES) if lane[0] == t) for t in TYPES},
    **{f"tips_{s.replace('post_all', 'post')}": tuple(k for k, lane in enumerate(LANES) if lane[1] == s) for s in TIPS_SOURCES},
}
_TIP_CENTS = (500, 1000, 1500, 2000, 2500, 5000, 10000, 20000)
_TIP_CUMULATIVE = (25, 45, 55, 70, 78, 90, 97, 100)
_SUB_PRICES = (499, 799, 999, 1499, 1999)


def lanes_for(type_: str | None, tips_source: str | None) -> tuple[int, ...]:
    return tuple(
        k for k, (t, s, _) in enumerate(LANES)
        if (type_ is None or t == type_) and (tips_source is None or s == tips_source)
    )


@dataclass(frozen=True, slots=True)
class Money:
    """One transaction's amounts in cents and its settlement delay."""

    gross: int
    fee: int
    vat: int
    tax: int
    media_tax: int
    pending_days: int
    fan: int  # index into the account's fan pool
    ref: int  # a related object number (post, stream), for descriptions

    @property
    def net(self) -> int:
        return self.gross - self.fee - self.vat - self.tax - self.media_tax


class EarningsLedger:
    def __init__(self, seed: int, account_id: int, start: int, span: int, rows: int, stats) -> None:
        self.seed = seed
        self.account_id = account_id
        self.stats = stats
        self.timelines = tuple(
            Timeline(start, span, round(rows * share), ID_BASE, STRIDE, k)
            for k, (_, _, share) in enumerate(LANES)
        )
        self._keys = tuple(derive_key(seed, account_id, "earnings", k) for k in range(len(LANES)))
        self._fans = fan_pool_size(rows)
        self._sub_price = _SUB_PRICES[derive_key(seed, account_id, "price") % len(_SUB_PRICES)]
        self._username = f"creator{account_id}"
        self._fan_ids: dict[int, int] = {}  # fan index -> user id (hashing costs per row)
        self._day_sums: dict[tuple[int, int], tuple[int, int, int]] = {}

    # --- amounts ---------------------------------------------------------------
    def money(self, lane: int, i: int) -> Money:
        r = Rng(self._keys[lane], i)
        kind = LANES[lane][0]
        if kind == "subscribes":
            gross = self._sub_price
            if r.chance(0.2):  # promotional price
                gross = gross // 2
        elif kind == "tips":
            gross = r.weighted(_TIP_CENTS, _TIP_CUMULATIVE)
        elif kind == "stream":
            gross = r.randint(5, 100) * 100
        else:  # post and chat_messages: priced like 9.99
            gross = r.randint(3, 50) * 100 - 1
        x = r.random()
        vat = (gross * 20 + 50) // 100 if x < 0.25 else 0
        tax = (gross * 5 + 50) // 100 if 0.25 <= x < 0.35 else 0
        media_tax = (gross * 3 + 50) // 100 if 0.35 <= x < 0.40 else 0
        fee = (gross * 20 + 50) // 100
        pending = 21 if r.chance(0.1) else 7
        return Money(gross, fee, vat, tax, media_tax, pending, r.below(self._fans), r.randint(1, 9999))

    def status(self, t: int, pending_days: int, now: int) -> str:
        """``loading`` while the payment is younger than its payoutPendingDays, then ``done``."""
        return "loading" if now < t + pending_days * DAY else "done"

    # --- rows ------------------------------------------------------------------
    def row(self, lane: int, i: int, now: int) -> dict:
        tl = self.timelines[lane]
        t = tl.time_of(i)
        m = self.money(lane, i)
        user_id = self.fan_user_id(m.fan)
        return {
            "id": str(tl.id_of(i)),
            "amount": m.gross / 100,
            "vatAmount": m.vat / 100,
            "taxAmount": m.tax / 100,
            "mediaTaxAmount": m.media_tax / 100,
            "net": m.net / 100,
            "fee": m.fee / 100,
            "currency": "USD",
            "createdAt": iso(t),
            "description": self.description(lane, m, user_id),
            "status": self.status(t, m.pending_days, now),
            "payoutPendingDays": m.pending_days,
            "user": user_summary(self.seed, user_id),
        }

    def fan_user_id(self, fan: int) -> int:
        user_id = self._fan_ids.get(fan)
        if user_id is None:
            user_id = self._fan_ids[fan] = fan_id(self.seed, self.account_id, fan)
        return user_id

    def description(self, lane: int, m: Money, user_id: int) -> str:
        who = user_link(self.seed, user_id)
        kind, source, _ = LANES[lane]
        base = f"{PROFILE}/{self._username}"
        if kind == "subscribes":
            return f"Subscription from {who}"
        if kind == "tips" and source is not None:  # every tips lane names its source
            where = {
                "profile": "",
                "post_all": f' for <a href="{base}/posts/{m.ref}">post</a>',
                "chat": " in chat",
                "stream": f' during <a href="{base}/streams/{m.ref}">stream</a>',
                "story": f' for <a href="{base}/stories/{m.ref}">story</a>',
            }[source]
            return f"Tip from {who}{where}"
        if kind == "post":
            return f'Payment for <a href="{base}/posts/{m.ref}">post</a> by {who}'
        if kind == "chat_messages":
            return f"Payment for message from {who}"
        return f'Payment for <a href="{base}/streams/{m.ref}">stream</a> by {who}'

    def truth_key(self, lane: int, i: int, now: int) -> str:
        """``id|status|net`` without building the row (same draws as :meth:`row`)."""
        from sandbox.core.checksum import money

        tl = self.timelines[lane]
        m = self.money(lane, i)
        return f"{tl.id_of(i)}|{self.status(tl.time_of(i), m.pending_days, now)}|{money(m.net)}"

    def locate(self, row_id: int) -> tuple[int, int] | None:
        """(lane, index) of an earnings id, for chargebacks and lookups."""
        lane = (row_id - ID_BASE) % STRIDE
        if lane >= len(LANES):
            return None
        i = self.timelines[lane].index_of_id(row_id)
        return None if i is None else (lane, i)

    # --- aggregates (earnings chart) --------------------------------------------
    def sums(self, lanes, lo: int, hi: int, now: int) -> tuple[int, int, int]:
        """(count, net cents, gross cents) of the lanes' rows with lo <= t <= min(hi, now).

        Whole days are cached (amounts never change; only status does), so a long chart
        generates each row once per process.
        """
        hi = min(hi, now)
        count = net = gross = 0
        if hi < lo:
            return 0, 0, 0
        for lane in lanes:
            for first, last in _day_pieces(lo, hi):
                if first % DAY == 0 and last == first + DAY - 1:
                    key = (lane, first)
                    part = self._day_sums.get(key)
                    if part is None:
                        part = self._day_sums[key] = self._range_sums(lane, first, last)
                else:
                    part = self._range_sums(lane, first, last)
                count += part[0]
                net += part[1]
                gross += part[2]
        return count, net, gross

    def _range_sums(self, lane: int, lo: int, hi: int) -> tuple[int, int, int]:
        indexes = self.timelines[lane].window(lo, hi)
        net = gross = 0
        for i in indexes:
            m = self.money(lane, i)
            net += m.net
            gross += m.gross
        self.stats["earnings.summed"] += len(indexes)
        return len(indexes), net, gross


def _day_pieces(lo: int, hi: int):
    """Split [lo, hi] at UTC midnights into (first, last) pieces."""
    first = lo
    while first <= hi:
        last = min(hi, first - first % DAY + DAY - 1)
        yield first, last
        first = last + 1
