"""Trending GIFs (live only, not account-scoped): the GIF provider proxy's answer.

A catalogue of GIFs is a pure function of the seed; each UTC day of the sandbox clock has
its own trending order of :data:`TRENDING` of them (a rotation of the catalogue), so the
list changes from one day to the next and is stable within a day. Any ``sandbox-<n>`` token
is accepted (the gate's rule for routes without an account).
"""

from __future__ import annotations

from functools import lru_cache

from litestar import get

from app.upstream import paths
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY
from sandbox.resources.live_common import limit_param, offset_page, offset_param
from sandbox.state import SandboxState

CATALOGUE = 1000
TRENDING = 250  # trending GIFs of one day (pagination.total_count)
STEP = 7  # coprime with CATALOGUE: a day's positions are distinct GIFs
GIF_HOST = "https://media.gifs.sandbox.example"
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_WORDS = ("happy", "dance", "cat", "wow", "thank you", "love", "party", "hello", "excited", "laugh",
          "wink", "coffee", "weekend", "celebrate", "oops", "yes", "facepalm", "hug", "fire", "cute")


@lru_cache(maxsize=CATALOGUE)
def gif(seed: int, number: int) -> dict:
    r = Rng(derive_key(seed, "live.gifs"), number)
    gif_id = "".join(r.choice(_ALNUM) for _ in range(r.randint(13, 18)))
    title = f"{r.choice(_WORDS).title()} {r.choice(_WORDS).title()} GIF"
    slug = title.lower().replace(" ", "-")
    width, height = r.randint(240, 640), r.randint(180, 480)
    base = f"{GIF_HOST}/media/{gif_id}"
    # The provider sends every width and height as a numeric string.
    fh_w, fh_h = str(round(width * 200 / height)), "200"
    fw_w, fw_h = "200", str(round(height * 200 / width))
    return {
        "id": gif_id,
        "title": title,
        "alt_text": f"Animated GIF: {title[:-4].lower()}",
        "rating": r.choice(("g", "g", "g", "pg", "pg-13")),
        "is_sticker": 0,
        "type": "gif",
        "url": f"https://gifs.sandbox.example/gifs/{slug}-{gif_id}",
        "embed_url": f"https://gifs.sandbox.example/embed/{gif_id}",
        "images": {
            "fixed_height": {"url": f"{base}/200.gif", "width": fh_w, "height": fh_h, "mp4": f"{base}/200.mp4"},
            "fixed_width": {"url": f"{base}/200w.gif", "width": fw_w, "height": fw_h, "mp4": f"{base}/200w.mp4"},
            "original": {"url": f"{base}/giphy.gif", "width": str(width), "height": str(height)},
            "original_mp4": {"width": str(width), "height": str(height), "mp4": f"{base}/giphy.mp4"},
            "preview_gif": {"url": f"{base}/giphy-preview.gif", "width": str(width // 3), "height": str(height // 3)},
        },
    }


def trending_numbers(day: int) -> list[int]:
    """Catalogue numbers of one day's trending list, most trending first."""
    return [(day * 31 + p * STEP) % CATALOGUE for p in range(TRENDING)]


@get(paths.route(paths.GIFS_TRENDING), sync_to_thread=False)
def trending_gifs(sandbox: SandboxState, now: int, limit: str | None = None, offset: str | None = None) -> dict:
    size = limit_param(limit, 20, 50)
    skip = offset_param(offset)
    page, _ = offset_page(trending_numbers(now // DAY), skip, size)
    return {
        "data": [gif(sandbox.seed, n) for n in page],
        "pagination": {"total_count": TRENDING, "count": len(page), "offset": skip},
    }


ROUTES = [trending_gifs]
