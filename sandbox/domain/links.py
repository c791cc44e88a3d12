"""Tracking links (= campaigns) and their daily stats, a pure function of (link, day)."""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY, iso
from sandbox.core.timeline import Timeline

LINK_ID_BASE = 3_000_000
_NAMES = ("instagram", "tiktok", "twitter", "reddit", "youtube", "newsletter", "bio", "promo")


@dataclass(frozen=True, slots=True)
class DayStats:
    day: int  # unix seconds of the day's start
    clicks: int | None  # None: the upstream lost that day's click count
    subs: int
    revenue_cents: int
    spenders: int


class TrackingLinks:
    def __init__(self, seed: int, account_id: int, start: int, span: int, rows: int) -> None:
        self.timeline = Timeline(start, span, rows, LINK_ID_BASE)
        self.seed = seed
        self.account_id = account_id
        self._keys: dict[int, int] = {}

    def _key(self, i: int) -> int:
        key = self._keys.get(i)
        if key is None:
            key = self._keys[i] = derive_key(self.seed, self.account_id, "tracking_link", i)
        return key

    def link(self, i: int) -> dict:
        r = Rng(self._key(i), -1)
        code = f"{r.choice(_NAMES)}{i + 1}"
        return {
            "id": self.timeline.id_of(i),
            "name": f"{code.capitalize()} campaign",
            "campaignCode": code,
            "url": f"https://creators.sandbox.example/creator{self.account_id}/c/{code}",
            "createdAt": iso(self.timeline.time_of(i)),
        }

    def created_day(self, i: int) -> int:
        t = self.timeline.time_of(i)
        return t - t % DAY

    def day(self, i: int, day: int) -> DayStats:
        """Stats of link i on the day starting at ``day`` (caller checks it is in range)."""
        popularity = Rng(self._key(i), -1).randint(5, 200)
        r = Rng(self._key(i), day // DAY)
        clicks = r.randint(0, 2 * popularity)
        subs = r.randint(0, clicks // 8 + 1)
        spenders = r.randint(0, subs)
        revenue = sum(r.randint(5, 30) * 100 for _ in range(spenders))
        lost = r.chance(0.05)
        return DayStats(day, None if lost else clicks, subs, revenue, spenders)

    def days(self, i: int, first_day: int, last_day: int) -> list[DayStats]:
        """Daily stats of link i for days in [first_day, last_day] from its creation day."""
        first = max(first_day, self.created_day(i))
        return [self.day(i, d) for d in range(first, last_day + 1, DAY)]
