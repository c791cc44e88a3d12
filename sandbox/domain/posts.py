"""Posts: a timeline of immutable posts, filtered and sorted in memory per request.

Posts are few (hundreds to a few thousand per account), so unlike earnings they are
materialised once per process (cached per account, extended as the clock reveals more)
and every filter and order is a plain pass over the visible list.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import iso
from sandbox.core.timeline import Timeline

CDN = "https://cdn.sandbox.example"
POST_ID_BASE = 2_000_000_000
_WORDS = ("new", "set", "today", "sunset", "beach", "studio", "behind", "the", "scenes", "workout",
          "coffee", "weekend", "surprise", "exclusive", "preview", "thank", "you", "all", "love",
          "travel", "city", "night", "morning", "vibes", "shoot", "outfit", "summer", "winter")
_MEDIA_TYPES = ("photo", "video", "audio")
_MEDIA_CUMULATIVE = (70, 95, 100)


@dataclass(frozen=True, slots=True)
class PostRecord:
    """A post's payload plus the typed fields filters and orders use."""

    payload: dict
    micros: int  # postedAtPrecise in microseconds: unique per post unless the account has ties
    favorites: int
    tips_cents: int
    media_types: frozenset
    pinned: bool
    labels: frozenset
    archived: bool
    private_archived: bool
    caption: str  # rawText lower-cased, for query search


class Posts:
    def __init__(self, seed: int, account_id: int, start: int, span: int, rows: int, *, ties: bool = False) -> None:
        self.timeline = Timeline(start, span, rows, POST_ID_BASE)
        # With ties the posts of one second share one postedAtPrecise (a whole second), as
        # posts published together can upstream; otherwise each value is unique.
        self.ties = ties
        self.account_id = account_id
        self._key = derive_key(seed, account_id, "posts")
        # Each account has three numeric post labels.
        self.label_ids = tuple(100 + derive_key(seed, account_id, "label", n) % 900 for n in range(3))
        self._records: list[PostRecord] = []
        self.by_micros: dict[int, PostRecord] = {}

    def visible(self, now: int) -> list[PostRecord]:
        """All posts with postedAt <= now, oldest first (cached, extended lazily)."""
        wanted = self.timeline.first_at_or_after(now + 1)
        for i in range(len(self._records), wanted):
            record = self._make(i)
            self._records.append(record)
            self.by_micros[record.micros] = record
        return self._records[:wanted]

    def _make(self, i: int) -> PostRecord:
        r = Rng(self._key, i)
        t = self.timeline.time_of(i)
        post_id = self.timeline.id_of(i)
        # Unique six-decimal fraction: random thousands plus i's last three digits (drawn
        # with ties too, so the rest of the post is the same either way).
        micro = r.below(1000) * 1000 + i % 1000
        if self.ties:
            micro = 0
        words = [r.choice(_WORDS) for _ in range(r.randint(3, 12))]
        raw = " ".join(words).capitalize()
        tag = r.choice(_WORDS)
        text = f'<p>{raw} <a href="/search?q=%23{tag}">#{tag}</a></p>'
        raw_text = f"{raw} #{tag}"
        media = []
        if not r.chance(0.3):
            for j in range(r.randint(1, 4)):
                kind = r.weighted(_MEDIA_TYPES, _MEDIA_CUMULATIVE)
                media.append(_media(post_id * 10 + j, kind, r.randint(5, 600) if kind != "photo" else 0))
        tips = r.randint(0, 200) * 50 if r.chance(0.6) else 0
        favorites = int(r.random() ** 3 * 2000)
        labels = frozenset(label for label in self.label_ids if r.chance(0.15))
        x = r.random()
        archived, private_archived = x < 0.05, 0.05 <= x < 0.08
        pinned = r.chance(0.03)
        payload = {
            "author": {"id": self.account_id, "_view": "a"},
            "responseType": "post",
            "id": post_id,
            "postedAt": iso(t),
            "postedAtPrecise": f"{t}.{micro:06d}",
            "text": text,
            "rawText": raw_text,
            "canDelete": True,
            "canComment": True,
            "canEdit": True,
            "canToggleFavorite": False,
            "canViewMedia": True,
            "isMediaReady": True,
            "mediaCount": len(media),
            "tipsAmount": f"${tips // 100}.{tips % 100:02d}",
            "media": media,
            # Extra fields (not in the spec) that the store needs to answer filters/orders.
            "favoritesCount": favorites,
            "isPinned": pinned,
            "labelIds": sorted(labels),
            "isArchived": archived,
            "isPrivateArchived": private_archived,
        }
        return PostRecord(
            payload, t * 1_000_000 + micro, favorites, tips,
            frozenset(m["type"] for m in media), pinned, labels, archived, private_archived,
            raw_text.lower(),
        )

    def counters(self, now: int) -> dict:
        """Counts over all visible posts (filters do not apply)."""
        photos = videos = audios = posts = archived = private = 0
        for rec in self.visible(now):
            if rec.archived:
                archived += 1
                continue
            if rec.private_archived:
                private += 1
                continue
            posts += 1
            for m in rec.payload["media"]:
                photos += m["type"] == "photo"
                videos += m["type"] == "video"
                audios += m["type"] == "audio"
        return {
            "audiosCount": audios, "photosCount": photos, "videosCount": videos,
            "mediasCount": photos + videos + audios, "postsCount": posts, "streamsCount": 0,
            "archivedPostsCount": archived, "privateArchivedPostsCount": private,
        }


def _media(media_id: int, kind: str, duration: int) -> dict:
    base = f"{CDN}/media/{media_id}"
    return {
        "id": media_id,
        "type": kind,
        "canView": True,
        "isReady": True,
        "duration": duration,
        "files": {
            "full": {"url": f"{base}/full"},
            "thumb": {"url": f"{base}/thumb"},
            "preview": {"url": f"{base}/preview"},
            "squarePreview": {"url": f"{base}/square"},
        },
    }
