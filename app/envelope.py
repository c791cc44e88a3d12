"""The success envelope: ``data``, ``_pagination`` (only when a next page exists), ``_meta``.

A handler returns ``Envelope(data=..., pagination=Pagination(next_page=url))`` -- or
``Envelope.page(data, next_page=url_or_none)`` -- and the gate answers it as an ``Answer``
with ``_meta`` (credits used, rate limits, and the ``cache`` a store-served handler names)
after the handler returns. A handler may also return the plain mapping
``{"data": ..., "_pagination": {...}}``; the gate reads it the same way.

``Answer[T]`` is what is encoded and what the served OpenAPI document declares (``T``: the
route's ``data``, from ``app.answers``), so the document and the serializer are one type.

Errors never use the envelope (see ``app.errors``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Literal, TypeVar

import msgspec

T = TypeVar("T")


class RateLimits(msgspec.Struct, frozen=True):
    limit_minute: int
    remaining_minute: int
    limit_day: int
    remaining_day: int


class Credits(msgspec.Struct, frozen=True):
    #: 1, or 0 for a request that is not charged.
    used: int


class Cache(msgspec.Struct, frozen=True):
    """Where a store-served answer came from, and as of when (ISO 8601, UTC; null when
    the store never recorded a successful sync)."""

    source: Literal["store", "upstream"]
    synced_at: str | None


class Meta(msgspec.Struct, frozen=True, omit_defaults=True):
    credits: Credits = msgspec.field(name="_credits")
    rate_limits: RateLimits = msgspec.field(name="_rate_limits")
    #: Only on store-served routes.
    cache: Cache | None = msgspec.field(default=None, name="_cache")


class Pagination(msgspec.Struct, frozen=True):
    #: Relative URL (path and query) of the next page.
    next_page: str


class Answer(msgspec.Struct, Generic[T], omit_defaults=True, kw_only=True):
    """What every authenticated success answers. ``_pagination`` only when a next page exists."""

    data: T
    pagination: Pagination | None = msgspec.field(default=None, name="_pagination")
    meta: Meta = msgspec.field(name="_meta")


class Envelope(msgspec.Struct, Generic[T], kw_only=True):
    """What a gated handler returns: its data, the next page, and for a store-served
    route where the data came from (``_meta._cache``). Never encoded itself."""

    data: T
    pagination: Pagination | None = None
    cache: Cache | None = None

    @classmethod
    def page(cls, data: Any, next_page: str | None = None, cache: Cache | None = None) -> Envelope:
        """``data`` with its next page's URL; no ``_pagination`` member when it is None."""
        return cls(data=data, pagination=Pagination(next_page) if next_page else None, cache=cache)


def as_envelope(result: object) -> Envelope:
    """A handler's return value as an ``Envelope``; anything else is a route bug."""
    if isinstance(result, Envelope):
        return result
    if isinstance(result, Mapping) and "data" in result and set(result) <= {"data", "_pagination"}:
        pagination = result.get("_pagination")
        next_page = pagination.get("next_page") if isinstance(pagination, Mapping) else None
        return Envelope.page(result["data"], next_page)
    raise TypeError(
        f"a gated route must return an Envelope or {{'data': ...}}, not {type(result).__name__}"
    )
