"""Fan (user) summaries, a pure function of (seed, user id), cached.

Each account has a pool of fans (:func:`fan_id` picks the j-th); any resource that embeds a
user (earnings, chargebacks, chats, ...) draws a fan index from its own row Rng and calls
:func:`user_summary` (the full object of earnings and chargeback rows) or :func:`user_ref`
(the short ``{id, _view, username, name}`` form of chat items).
"""

from __future__ import annotations

from functools import lru_cache

from sandbox.core.rng import Rng, derive_key

CDN = "https://cdn.sandbox.example"
PROFILE = "https://creators.sandbox.example"

_FIRST = ("Alex", "Sam", "Jordan", "Taylor", "Morgan", "Casey", "Riley", "Jamie", "Robin",
          "Charlie", "Avery", "Quinn", "Drew", "Emery", "Kai", "Noa", "Luca", "Mia", "Leo", "Zoe")
_LAST = ("Smith", "Nguyen", "Garcia", "Müller", "Rossi", "Kowalski", "Silva", "Dubois",
         "Kim", "Haddad", "Okafor", "Larsen", "Novak", "Ivanova", "Santos", "Cohen")

FAN_POOL_MAX = 5000


def fan_pool_size(rows: int) -> int:
    """How many distinct fans an account with ``rows`` earnings rows has (bounded for caching)."""
    return max(20, min(FAN_POOL_MAX, rows // 15))


def fan_id(seed: int, account_id: int, index: int) -> int:
    """The user id of the account's ``index``-th fan (ids are 8-9 digit integers)."""
    return 10_000_000 + derive_key(seed, account_id, "fan", index) % 890_000_000


@lru_cache(maxsize=50_000)
def user_summary(seed: int, user_id: int) -> dict:
    """The full user summary (earnings and chargeback rows). Shared object: never mutate it."""
    r = Rng(derive_key(seed, "user"), user_id)
    first, last = r.choice(_FIRST), r.choice(_LAST)
    username = f"{first.lower()}{last.lower()[:3]}{user_id % 10000}"
    has_avatar = r.chance(0.7)
    avatar = f"{CDN}/avatars/{user_id}.jpg" if has_avatar else None
    thumbs = (
        {"c50": f"{CDN}/avatars/{user_id}_c50.jpg", "c144": f"{CDN}/avatars/{user_id}_c144.jpg"}
        if has_avatar
        else None
    )
    return {
        "id": user_id,
        "name": f"{first} {last}",
        "username": username,
        "displayName": first if r.chance(0.5) else f"{first} {last[0]}.",
        "view": "s",
        "isVerified": r.chance(0.1),
        "isDeleted": r.chance(0.02),
        "isActive": r.chance(0.95),
        "avatar": avatar,
        "avatarThumbs": thumbs,
    }


def user_ref(seed: int, user_id: int) -> dict:
    """The short user form of chat items: ``{id, _view, username, name}``."""
    full = user_summary(seed, user_id)
    return {"id": user_id, "_view": "s", "username": full["username"], "name": full["name"]}


def user_link(seed: int, user_id: int) -> str:
    """An HTML link to the user's profile, as used in upstream descriptions."""
    full = user_summary(seed, user_id)
    return f'<a href="{PROFILE}/{full["username"]}">{full["name"]}</a>'
