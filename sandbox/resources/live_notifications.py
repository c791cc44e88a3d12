"""Notifications and mark-read (live only).

Notifications arrive on a timeline (default 12 a day) that keeps running, so new ones appear
as the clock advances; ids grow with time, and the list is newest first with ``from_id`` as
the cursor (the next page holds ids below it). Rows from before the epoch are mostly read
already; newer ones arrive unread.

The one mutable state of the live resources: mark-read stores, per account and category,
the clock second up to which that category is read (``SandboxState.scratch``, cleared by
``POST /_sandbox/reset``). A notification is read when drawn read or created at or before
its category's mark, so a mark never touches notifications that arrive after it.
"""

from __future__ import annotations

from functools import lru_cache

from litestar import get, post

from app.upstream import paths
from sandbox.core.errors import bad_request
from sandbox.core.params import enum_param, int_param
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import iso
from sandbox.core.timeline import Timeline
from sandbox.core.users import fan_id, fan_pool_size, user_link
from sandbox.resources.live_common import limit_param, newest_visible, rate_timeline
from sandbox.state import SandboxState

NOTIFICATIONS_PER_DAY = 11.3  # non-round: rows off round clock times
ID_BASE = 8_000_000_000
CATEGORIES = ("subscribed", "paided_message", "purchases", "tip", "tags", "commented", "mentioned",
              "favorited", "message", "system", "deactivated_media")
# The categories the mark-read route accepts (the spec's list: no paided_message, no system).
MARKABLE = ("subscribed", "purchases", "tip", "tags", "commented", "mentioned", "favorited", "message",
            "deactivated_media")
_CUMULATIVE = (20, 26, 36, 48, 51, 61, 65, 90, 97, 99, 100)  # favorites and subscriptions dominate
_TEXTS = {
    "subscribed": "{who} subscribed to your profile",
    "paided_message": "{who} paid for your message",
    "purchases": "{who} purchased your post",
    "tip": "{who} sent you a <strong>tip</strong>",
    "tags": "{who} tagged you in a post",
    "commented": "{who} commented on your post",
    "mentioned": "{who} mentioned you",
    "favorited": "{who} liked your post",
    "message": "{who} sent you a message",
    "system": "Your weekly statistics are ready",
    "deactivated_media": "A media item was deactivated for review",
}
SCRATCH_KEY = "live.notifications.read_marks"


def notifications_timeline(sandbox, account_id: int) -> Timeline:
    return rate_timeline(sandbox, account_id, "notifications", NOTIFICATIONS_PER_DAY, ID_BASE)


@lru_cache(maxsize=400_000)
def intrinsic(seed: int, account_id: int, i: int, before_epoch: bool) -> tuple[str, bool, int]:
    """(category, drawn read state, fan index) of notification i: never changes."""
    r = Rng(derive_key(seed, account_id, "live.notifications"), i)
    category = r.weighted(CATEGORIES, _CUMULATIVE)
    drawn_read = before_epoch and r.chance(0.95)
    return category, drawn_read, r.below(1 << 30)


def read_marks(sandbox, account_id: int) -> dict[str, int]:
    return sandbox.scratch.setdefault(SCRATCH_KEY, {}).setdefault(account_id, {})


class Feed:
    """One account's notifications as of ``now`` with its read marks."""

    def __init__(self, sandbox, account_id: int, now: int) -> None:
        self.seed, self.account_id = sandbox.seed, account_id
        self.tl = notifications_timeline(sandbox, account_id)
        self.epoch = sandbox.config.epoch
        self.newest = newest_visible(self.tl, now)
        self.marks = read_marks(sandbox, account_id)
        self.fans = fan_pool_size(sandbox.profile(account_id).earnings)

    def facts(self, i: int) -> tuple[str, bool, int]:
        t = self.tl.time_of(i)
        category, drawn_read, fan = intrinsic(self.seed, self.account_id, i, t < self.epoch)
        return category, drawn_read or t <= self.marks.get(category, -1), fan

    def item(self, i: int) -> dict:
        category, is_read, fan = self.facts(i)
        who = user_link(self.seed, fan_id(self.seed, self.account_id, fan % self.fans))
        return {
            "id": self.tl.id_of(i),
            "type": category,
            "createdAt": iso(self.tl.time_of(i)),
            "isRead": is_read,
            "text": _TEXTS[category].format(who=who),
        }

    def unread_counters(self) -> dict[str, int]:
        counters = dict.fromkeys(CATEGORIES, 0)
        for i in range(self.newest + 1):
            category, is_read, _ = self.facts(i)
            if not is_read:
                counters[category] += 1
        return counters


def _category(name: str, raw: str | None, allowed: tuple[str, ...]) -> str | None:
    # ``all`` is refused on both routes: omitting ``type`` is how to ask for every category.
    if raw == "all":
        raise bad_request(name, "'all' is not a category; omit type for every category")
    return enum_param(name, raw, allowed)


@get(paths.route(paths.NOTIFICATIONS), sync_to_thread=False)
def list_notifications(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    limit: str | None = None,
    type: str | None = None,  # noqa: A002 - the upstream's parameter name
    from_id: str | None = None,
) -> dict:
    size = limit_param(limit, 10, 100)
    category = _category("type", type, CATEGORIES)
    feed = Feed(sandbox, account_id, now)
    start = feed.newest
    if from_id not in (None, ""):
        cursor = int_param("from_id", from_id, 0, 1)
        start = min(start, cursor - ID_BASE - 1)  # ids are ID_BASE + i: the rows below the cursor
    picked: list[int] = []
    for i in range(start, -1, -1):
        if category is None or feed.facts(i)[0] == category:
            picked.append(i)
            if len(picked) > size:
                break  # one row past the page proves hasMore
    return {"list": [feed.item(i) for i in picked[:size]], "hasMore": len(picked) > size}


@post(paths.route(paths.NOTIFICATIONS_MARK_READ), sync_to_thread=False, status_code=200)
def mark_read(account_id: int, type: str, sandbox: SandboxState, now: int) -> dict:  # noqa: A002
    category = _category("type", type, MARKABLE)
    marks = read_marks(sandbox, account_id)
    if category is not None:  # an empty type names no category: nothing to mark
        marks[category] = max(marks.get(category, -1), now)
    counters = Feed(sandbox, account_id, now).unread_counters()
    return {"counters": counters, "hasSystemNotifications": counters["system"] > 0, "success": True}


def notifications_truth(sandbox, account_id, lo, hi, params):
    """The ids of the notifications with lo <= createdAt <= hi, of category ``type`` when
    given (for cursor walk tests)."""
    feed = Feed(sandbox, account_id, hi)
    category = params.get("type")
    for i in feed.tl.window(lo, hi):
        if category is None or feed.facts(i)[0] == category:
            yield str(feed.tl.id_of(i))


ROUTES = [list_notifications, mark_read]
TRUTH = {"notifications": notifications_truth}
