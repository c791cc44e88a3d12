"""Vault: media still being processed, and the vault lists (live only).

Uploads arrive on a timeline (default 20 a day). Upload i is converted for a drawn 5 to 240
minutes: it is in the processing list while ``createdAt <= now < createdAt + duration`` and
leaves it when conversion finishes; from then on it counts in the ``Uploads`` list and in
``all``. Nothing is stored: advancing the clock is what finishes a conversion.
"""

from __future__ import annotations

from dataclasses import dataclass

from litestar import get

from app.upstream import paths
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import iso
from sandbox.core.timeline import Timeline
from sandbox.resources.live_common import (
    SearchQuery,
    limit_param,
    media_url,
    newest_visible,
    numbered_name,
    offset_page,
    offset_param,
    rate_timeline,
)
from sandbox.state import SandboxState

UPLOADS_PER_DAY = 19.3  # non-round: rows off round clock times
UPLOAD_ID_BASE = 4_000_000_000
MIN_CONVERSION, MAX_CONVERSION = 5 * 60, 240 * 60
DEFAULT_CUSTOM_LISTS = 10
VAULT_LIST_ID_BASE = 5_500_000
# System lists in upstream order: (name, type). ``streams`` and ``uploads`` are the sandbox's
# names for the two whose type the spec does not show.
SYSTEM_LISTS = (("Posts", "posts"), ("Stories", "stories"), ("Messages", "messages"),
                ("Streams", "streams"), ("Uploads", "uploads"))
_CUSTOM_NAMES = ("Beach shoot", "Behind the scenes", "Cosplay", "Workout", "Travel", "Stickers",
                 "Holiday specials", "Fan requests", "Unreleased", "Best of")
COUNT_FIELDS = ("videosCount", "photosCount", "gifsCount", "audiosCount")


def uploads_timeline(sandbox, account_id: int) -> Timeline:
    return rate_timeline(sandbox, account_id, "vault_uploads", UPLOADS_PER_DAY, UPLOAD_ID_BASE)


def conversion_seconds(seed: int, account_id: int, i: int) -> int:
    return Rng(derive_key(seed, account_id, "live.vault.uploads"), i).randint(MIN_CONVERSION, MAX_CONVERSION)


def processing_indexes(sandbox, account_id: int, tl: Timeline, now: int) -> list[int]:
    """Uploads created at or before now whose conversion has not finished, newest first."""
    recent = tl.window(now - MAX_CONVERSION, now)
    seed = sandbox.seed
    return [i for i in reversed(recent) if now < tl.time_of(i) + conversion_seconds(seed, account_id, i)]


def processing_item(seed: int, account_id: int, tl: Timeline, i: int) -> dict:
    r = Rng(derive_key(seed, account_id, "live.vault.media"), i)
    return {
        "id": tl.id_of(i),
        "type": "video",
        "createdAt": iso(tl.time_of(i)),
        "isReady": False,
        "canView": False,
        "hasError": r.chance(0.03),
        "files": {"full": {"url": None}, "thumb": None, "preview": None, "squarePreview": None},
        "duration": r.randint(5, 900),
    }


def finished_uploads(sandbox, account_id: int, tl: Timeline, now: int) -> int:
    """How many uploads have finished converting by ``now``."""
    settled = tl.first_at_or_after(now - MAX_CONVERSION)  # all of these are done
    recent = newest_visible(tl, now) + 1 - settled
    return settled + recent - len(processing_indexes(sandbox, account_id, tl, now))


@dataclass(frozen=True, slots=True)
class VaultList:
    id: int
    type: str
    name: str
    counts: tuple[int, int, int, int]  # videos, photos, gifs, audios
    system: bool


def vault_lists(sandbox, account_id: int, now: int) -> list[VaultList]:
    seed = sandbox.seed
    key = derive_key(seed, account_id, "live.vault.lists")
    out = []
    for k, (name, kind) in enumerate(SYSTEM_LISTS):
        r = Rng(key, k)
        counts = (r.randint(0, 300), r.randint(0, 1500), r.randint(0, 40), r.randint(0, 20))
        if kind == "uploads":  # uploads are videos; they land here once converted
            counts = (finished_uploads(sandbox, account_id, uploads_timeline(sandbox, account_id), now), *counts[1:])
        out.append(VaultList(VAULT_LIST_ID_BASE + k, kind, name, counts, True))
    for k in range(sandbox.profile(account_id).size("vault_lists", DEFAULT_CUSTOM_LISTS)):
        r = Rng(key, 100 + k)
        name = numbered_name(_CUSTOM_NAMES, k)
        counts = (r.randint(0, 40), r.randint(0, 120), r.randint(0, 5), r.randint(0, 3))
        out.append(VaultList(VAULT_LIST_ID_BASE + 100 + k, "custom", name, counts, False))
    return out


def _medias(list_id: int, counts) -> list[dict]:
    """Up to three preview entries, videos first then photos."""
    kinds = ["video"] * min(counts[0], 3) + ["photo"] * min(counts[1], 3)
    return [{"type": kind, "url": media_url(kind, list_id * 10 + n, "thumb")} for n, kind in enumerate(kinds[:3])]


def vault_list_item(vl: VaultList) -> dict:
    return {
        "id": vl.id,
        "type": vl.type,
        "name": vl.name,
        "canUpdate": not vl.system,
        "canDelete": not vl.system,
        **dict(zip(COUNT_FIELDS, vl.counts, strict=True)),
        "medias": _medias(vl.id, vl.counts),
    }


@get(paths.route(paths.VAULT_MEDIA_PROCESSING), sync_to_thread=False)
def media_processing(account_id: int, sandbox: SandboxState, now: int) -> dict:
    tl = uploads_timeline(sandbox, account_id)
    converting = processing_indexes(sandbox, account_id, tl, now)
    return {"list": [processing_item(sandbox.seed, account_id, tl, i) for i in converting]}


@get(paths.route(paths.VAULT_LISTS), sync_to_thread=False)
def list_vault_lists(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    limit: str | None = None,
    offset: str | None = None,
    search: SearchQuery = None,
) -> dict:
    size = limit_param(limit, 24, 100)
    skip = offset_param(offset)
    lists = vault_lists(sandbox, account_id, now)
    needle = (search or "").strip().lower()
    shown = [vl for vl in lists if not vl.system and needle in vl.name.lower()] if needle else lists
    page, has_more = offset_page(shown, skip, size)
    # ``all`` is the whole vault: every system list (custom folders reuse the same media).
    totals = tuple(sum(vl.counts[k] for vl in lists if vl.system) for k in range(len(COUNT_FIELDS)))
    return {
        "list": [vault_list_item(vl) for vl in page],
        "all": {**dict(zip(COUNT_FIELDS, totals, strict=True)), "medias": _medias(VAULT_LIST_ID_BASE, totals)},
        "hasMore": has_more,
        "canCreateVaultLists": True,
        "order": "asc",
        "sort": "default",
    }


ROUTES = [media_processing, list_vault_lists]
