"""Promotions (discounted subscription offers) and free-trial links (live only).

One promo timeline serves both ``reach/promotions`` (promo history inside a date window) and
``promotions-trials`` (promos and trials merged, newest first). A promo runs from
``createdAt`` to ``finishedAt`` and its claims accrue evenly over that run, so
``claimsCount`` grows and ``isFinished`` flips as the clock passes; a trial likewise
expires at ``expiredAt``.
"""

from __future__ import annotations

from dataclasses import dataclass

from litestar import get

from app.upstream import paths
from sandbox.core.params import window
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY, iso
from sandbox.core.timeline import Timeline
from sandbox.core.timeline import offset_page as timeline_offset_page
from sandbox.core.users import PROFILE
from sandbox.resources.live_common import limit_param, newest_visible, offset_page, offset_param, rate_timeline
from sandbox.state import SandboxState

PROMOS_PER_DAY = 0.093  # non-round: rows off round clock times
TRIALS_PER_DAY = 0.047
PROMO_ID_BASE = 7_000_000
TRIAL_ID_BASE = 9_000_000
_PRICES = (2.99, 3.99, 4.99, 5.99, 7.49, 9.99)
_SUBSCRIBE_DAYS = (7, 30, 30, 30, 60, 90)
_PROMO_TEXTS = ("{pct}% off for new fans this week", "Come back! {pct}% off your next month",
                "Weekend special: {pct}% off", "Celebrating {pct}k fans with a discount")
_TRIAL_NAMES = ("Twitter bio", "Reddit weekend", "Instagram story", "Newsletter", "Collab shout-out",
                "TikTok link", "Friends and family")


def promos_timeline(sandbox, account_id: int) -> Timeline:
    return rate_timeline(sandbox, account_id, "promotions", PROMOS_PER_DAY, PROMO_ID_BASE)


def trials_timeline(sandbox, account_id: int) -> Timeline:
    return rate_timeline(sandbox, account_id, "trials", TRIALS_PER_DAY, TRIAL_ID_BASE)


def claims_so_far(total: int, start: int, end: int, now: int) -> int:
    """Claims accrue evenly from start to end: the number made by ``now``."""
    if now >= end:
        return total
    return total * max(0, now - start) // max(1, end - start)


@dataclass(frozen=True, slots=True)
class Promo:
    id: int
    created: int
    finished: int
    price: float
    claims_total: int
    item_draw: int  # index of the row's Rng, for the fields drawn only when rendering

    def claims_between(self, lo: int, hi: int) -> int:
        """Claims made in [lo, hi] (used by the promo earnings overview)."""
        return claims_so_far(self.claims_total, self.created, self.finished, hi + 1) - claims_so_far(
            self.claims_total, self.created, self.finished, lo
        )


def promo(seed: int, account_id: int, tl: Timeline, i: int) -> Promo:
    r = Rng(derive_key(seed, account_id, "live.promos"), i)
    created = tl.time_of(i)
    return Promo(
        id=tl.id_of(i),
        created=created,
        finished=created + r.randint(3, 30) * DAY,
        price=r.choice(_PRICES),
        claims_total=r.randint(0, 400),
        item_draw=i,
    )


def promo_item(seed: int, account_id: int, p: Promo, now: int) -> dict:
    r = Rng(derive_key(seed, account_id, "live.promos.text"), p.item_draw)
    raw = r.choice(_PROMO_TEXTS).format(pct=r.choice((20, 30, 40, 50, 75)))
    limited = r.chance(0.4)
    claims = claims_so_far(p.claims_total, p.created, p.finished, now)
    subscribe_counts = max(p.claims_total, 10) if limited else None
    finished = now >= p.finished
    return {
        "id": p.id,
        "message": f"<p>{raw}</p>",
        "rawMessage": raw,
        "hasRelatedPromo": r.chance(0.2),
        "price": p.price,
        "type": "new" if r.chance(0.7) else "all",
        "canClaim": not finished and (subscribe_counts is None or claims < subscribe_counts),
        "claimsCount": claims,
        "subscribeCounts": subscribe_counts,
        "subscribeDays": r.choice(_SUBSCRIBE_DAYS),
        "createdAt": iso(p.created),
        "finishedAt": iso(p.finished),
        "isFinished": finished,
    }


def trial_item(seed: int, account_id: int, tl: Timeline, i: int, now: int) -> dict:
    r = Rng(derive_key(seed, account_id, "live.trials"), i)
    created = tl.time_of(i)
    expired = created + r.randint(7, 60) * DAY
    subscribe_counts = r.choice((10, 25, 50, 100, 500))
    code = f"{r.next64() % 36**8:08x}"
    return {
        "id": tl.id_of(i),
        "url": f"{PROFILE}/creator{account_id}/trial/{code}",
        "trialLinkName": r.choice(_TRIAL_NAMES),
        "subscribeDays": r.choice(_SUBSCRIBE_DAYS),
        "subscribeCounts": subscribe_counts,
        "claimCounts": claims_so_far(r.randint(0, subscribe_counts), created, expired, now),
        "createdAt": iso(created),
        "expiredAt": iso(expired),
        "isFinished": now >= expired,
    }


def promos_in(sandbox, account_id: int, lo: int, hi: int) -> list[Promo]:
    """Every promo created in [lo, hi], oldest first."""
    tl = promos_timeline(sandbox, account_id)
    return [promo(sandbox.seed, account_id, tl, i) for i in tl.window(lo, hi)]


@get(paths.route(paths.REACH_PROMOTIONS), sync_to_thread=False)
def promotions_history(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    limit: str | None = None,
    offset: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
) -> dict:
    size = limit_param(limit, 10, 100)
    skip = offset_param(offset)
    lo, hi = window(start_date, end_date, now)
    tl = promos_timeline(sandbox, account_id)
    # Arithmetic paging on one timeline (newest first); rows after now do not exist yet.
    indexes, total = timeline_offset_page(tl, lo, min(hi, now), skip, size)
    seed = sandbox.seed
    items = [promo_item(seed, account_id, promo(seed, account_id, tl, i), now) for i in indexes]
    return {"items": items, "hasMore": skip + size < total}


@get(paths.route(paths.PROMOTIONS_TRIALS), sync_to_thread=False)
def promotions_and_trials(
    account_id: int, sandbox: SandboxState, now: int, limit: str | None = None, offset: str | None = None
) -> dict:
    size = limit_param(limit, 100, 200)
    skip = offset_param(offset)
    seed = sandbox.seed
    promos, trials = promos_timeline(sandbox, account_id), trials_timeline(sandbox, account_id)
    # (createdAt, id) descending over both kinds: ids of the two kinds never collide.
    keys = [(promos.time_of(i), promos.id_of(i), "promo", i) for i in range(newest_visible(promos, now) + 1)]
    keys += [(trials.time_of(i), trials.id_of(i), "trial", i) for i in range(newest_visible(trials, now) + 1)]
    keys.sort(reverse=True)
    page, has_more = offset_page(keys, skip, size)
    items = [
        {"promo": promo_item(seed, account_id, promo(seed, account_id, promos, i), now)}
        if kind == "promo"
        else {"trial": trial_item(seed, account_id, trials, i, now)}
        for _, _, kind, i in page
    ]
    return {"items": items, "hasMore": has_more}


ROUTES = [promotions_history, promotions_and_trials]
