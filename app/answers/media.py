"""The media lists: the vault's lists and processing media, and trending GIFs."""

from __future__ import annotations

import msgspec

from app.answers.feeds import MediaFiles
from app.answers.shared import Camel, NumericString, Timestamp

# --- vault ---------------------------------------------------------------------------------


class ProcessingMedia(Camel, kw_only=True):
    id: int
    type: str
    created_at: Timestamp
    is_ready: bool
    can_view: bool
    has_error: bool
    files: MediaFiles
    duration: int


class ProcessingMediaList(Camel, kw_only=True):
    rows: list[ProcessingMedia] = msgspec.field(name="list")


class VaultMedia(msgspec.Struct, kw_only=True):
    type: str
    url: str


class VaultCounts(Camel, kw_only=True):
    videos_count: int
    photos_count: int
    gifs_count: int
    audios_count: int
    medias: list[VaultMedia]


class VaultList(VaultCounts, kw_only=True):
    id: int
    type: str
    name: str
    can_update: bool
    can_delete: bool


class VaultListsPage(Camel, kw_only=True):
    rows: list[VaultList] = msgspec.field(name="list")
    all: VaultCounts
    has_more: bool
    can_create_vault_lists: bool
    order: str
    sort: str


# --- GIFs ----------------------------------------------------------------------------------


class GifImage(msgspec.Struct, kw_only=True):
    """Widths and heights are numbers written as strings."""

    url: str | None = None
    width: NumericString
    height: NumericString
    mp4: str | None = None


class GifImages(msgspec.Struct, kw_only=True):
    fixed_height: GifImage
    fixed_width: GifImage
    original: GifImage
    original_mp4: GifImage
    preview_gif: GifImage


class Gif(msgspec.Struct, kw_only=True):
    id: str
    title: str
    alt_text: str
    rating: str
    is_sticker: int
    type: str
    url: str
    embed_url: str
    images: GifImages


class GifPagination(msgspec.Struct, kw_only=True):
    total_count: int
    count: int
    offset: int


class TrendingGifs(msgspec.Struct, kw_only=True):
    data: list[Gif]
    pagination: GifPagination
