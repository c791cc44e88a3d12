"""Shared pieces of the live-only resources (chats, messages, reach, vault, notifications...).

Live resources are never synced by Creator Relay: the API forwards each request upstream and
passes the body through inside ``data``. Their sandbox data follows the same rules as the
synced ones (see sandbox/README.md): every value is a pure function of (seed, account, row
index) and the sandbox clock, rows with a time after ``now`` do not exist yet, and the only
mutable state is the notification read marks kept in ``SandboxState.scratch``.

Per-account sizes are plug-in sizes of the account profile (``PUT /_sandbox/accounts/{id}``
with e.g. ``{"chats": 5}``); :func:`rate_timeline` turns a "rows per day" default into a
:class:`~sandbox.core.timeline.Timeline` over the account's history that keeps running after
the epoch, so new rows appear as the clock moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Annotated, TypeVar

from litestar.params import Parameter

from sandbox.core.params import int_param
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY
from sandbox.core.timeline import Timeline
from sandbox.core.users import CDN
from sandbox.state import SandboxState

T = TypeVar("T")


# Litestar reserves the handler argument name ``query`` (the whole query string), so the
# upstream's ``query`` parameter reaches handlers as ``search``.
SearchQuery = Annotated[str | None, Parameter(query="query")]


# --- paging -------------------------------------------------------------------------------
def offset_page(items: Sequence[T], offset: int, limit: int) -> tuple[list[T], bool]:
    """One offset page of an already ordered sequence and whether rows follow it.

    The one offset pager of every live list (chats, chat lists, promotions, vault lists,
    GIFs), so they all agree on ``hasMore``: true exactly when a row exists past the page.
    """
    return list(items[offset : offset + limit]), offset + limit < len(items)


def limit_param(raw: str | None, default: int, high: int) -> int:
    return int_param("limit", raw, default, 1, high)


def offset_param(raw: str | None) -> int:
    return int_param("offset", raw, 0, 0, None)


# --- sizing -------------------------------------------------------------------------------
def rate_timeline(
    sandbox: SandboxState, account_id: int, size_name: str, per_day: float, id_base: int
) -> Timeline:
    """The account's timeline of ``size_name`` rows: ``profile.size(size_name)`` rows over the
    history (default ``per_day`` a day), continuing at that rate after the epoch.

    The row count is capped at one per second, so that no two rows share a timestamp,
    unless the account's profile sets ``ties`` (``AccountProfile.allows_ties``): then a dense size puts
    many rows in one second, as cursor walk tests need. The history thus covers
    ``[history_start + phase, epoch + phase)``.
    """
    profile = sandbox.profile(account_id)
    span = max(1, int(profile.history_days * DAY))
    wanted = max(0, profile.size(size_name, round(per_day * profile.history_days)))
    n = wanted if profile.allows_ties() else min(wanted, span)
    # A per-resource phase within one row gap, so that the rows of different resources
    # (and the last one of each) do not all fall on the epoch's round second.
    phase = derive_key(sandbox.seed, account_id, size_name) % max(1, span // max(1, n))
    return Timeline(sandbox.history_start(account_id) + phase, span, n, id_base)


def newest_visible(tl: Timeline, now: int) -> int:
    """Index of the last row at or before ``now`` (-1 when none exists yet)."""
    return tl.first_at_or_after(now + 1) - 1 if tl.n > 0 else -1


# --- realistic text -----------------------------------------------------------------------
_OPENERS = ("Hey", "Hi", "Good morning", "Happy Friday", "Thank you", "Surprise", "Guess what")
_BODIES = (
    "a brand new photo set is live",
    "my new video just dropped",
    "thanks so much for the support",
    "check your inbox for a little gift",
    "the behind the scenes clip is ready",
    "I am going live tonight at 9",
    "new tutorial in the vault",
    "the weekend bundle is half price",
    "I read every message, keep them coming",
    "the poll results are in",
)
_EMOJI = ("", " \U0001F525", " \u2728", " \U0001F496", " \U0001F389")


def plain_text(r: Rng) -> str:
    return f"{r.choice(_OPENERS)}! {r.choice(_BODIES).capitalize()}{r.choice(_EMOJI)}"


def html_text(plain: str, r: Rng) -> str:
    """The upstream's HTML form of a text: a paragraph, sometimes with emphasis or a line break."""
    head, _, tail = plain.partition("! ")
    style = r.below(3)
    if style == 0:
        return f"<p>{plain}</p>"
    if style == 1:
        return f"<p><strong>{head}!</strong> {tail}</p>"
    return f"<p>{head}!<br />{tail}</p>"


def numbered_name(names: Sequence[str], k: int) -> str:
    """The k-th name of a cycle of names: ``VIP``, ..., then ``VIP 2``, ... (names stay unique)."""
    lap, position = divmod(k, len(names))
    return names[position] if lap == 0 else f"{names[position]} {lap + 1}"


def media_url(kind: str, media_id: int, variant: str = "full") -> str:
    ext = {"photo": "jpg", "video": "mp4", "gif": "gif", "audio": "mp3"}.get(kind, "jpg")
    return f"{CDN}/media/{media_id}/{variant}.{ext}"


# --- daily audience activity (earnings overview, profile visitors) -------------------------
ACTIVITY_FIELDS = (
    "guests", "users", "subscribers",  # distinct profile visitors by kind
    "visits", "duration",  # profile views and the seconds spent on the profile
    "subs_new", "subs_renew",
    "posts", "post_views", "streams", "stream_minutes", "stream_views",
    "mass_messages", "mass_message_views", "stories", "story_views",
)


@lru_cache(maxsize=200_000)
def day_activity(seed: int, account_id: int, day: int) -> tuple[int, ...]:
    """One UTC day's activity counters (in :data:`ACTIVITY_FIELDS` order): a pure function
    of (seed, account, day number), so every window summing them agrees with every other."""
    scale = 0.5 + Rng(derive_key(seed, account_id, "live.activity.scale")).random() * 2
    r = Rng(derive_key(seed, account_id, "live.activity"), day)
    weekend = 1.25 if (day + 3) % 7 >= 5 else 1.0  # day 0 (1970-01-01) was a Thursday
    level = scale * weekend * (0.7 + 0.6 * r.random())
    guests, users, subscribers = (round(level * base * (0.8 + 0.4 * r.random())) for base in (120, 60, 25))
    visitors = guests + users + subscribers
    visits = visitors + round(visitors * 0.6 * r.random())
    streams = 1 if r.chance(0.15) else 0
    stories = r.below(4)
    posts = r.below(3)
    mass = 1 if r.chance(0.3) else 0
    return (
        guests, users, subscribers, visits, visits * r.randint(20, 90),
        round(level * 4 * r.random()), round(level * 6 * r.random()),
        posts, posts * round(level * r.randint(80, 300)),
        streams, streams * r.randint(15, 120), streams * round(level * r.randint(20, 90)),
        mass, mass * round(level * r.randint(100, 400)),
        stories, stories * round(level * r.randint(30, 150)),
    )


def activity_sums(sandbox: SandboxState, account_id: int, lo: int, hi: int, now: int) -> dict[str, int]:
    """Activity summed over [lo, hi] (inclusive, clamped to the account's history and to
    ``now``). Days cut by the window count in proportion to the seconds inside it, so
    today's numbers grow while the clock runs."""
    lo = max(lo, sandbox.history_start(account_id))
    hi = min(hi, now)
    totals = [0] * len(ACTIVITY_FIELDS)
    day = lo // DAY
    while day * DAY <= hi:
        first, last = max(lo, day * DAY), min(hi, day * DAY + DAY - 1)
        values = day_activity(sandbox.seed, account_id, day)
        if last - first + 1 == DAY:
            for k, v in enumerate(values):
                totals[k] += v
        else:
            for k, v in enumerate(values):
                totals[k] += v * (last - first + 1) // DAY
        day += 1
    return dict(zip(ACTIVITY_FIELDS, totals, strict=True))
