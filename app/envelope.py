"""The success envelope: ``data``, ``_pagination`` (only when a next page exists), ``_meta``.

A handler returns ``Envelope(data=..., pagination=Pagination(next_page=url))`` -- or
``Envelope.page(data, next_page=url_or_none)`` -- and the gate fills ``_meta`` (credits
used, rate limits) after the handler returns. A handler may also return the plain mapping
``{"data": ..., "_pagination": {...}}``; the gate turns it into an ``Envelope``.

Errors never use the envelope (see ``app.errors``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec


class RateLimits(msgspec.Struct, frozen=True):
    limit_minute: int
    remaining_minute: int
    limit_day: int
    remaining_day: int


class Credits(msgspec.Struct, frozen=True):
    used: int


class Meta(msgspec.Struct, frozen=True, omit_defaults=True):
    credits: Credits = msgspec.field(name="_credits")
    rate_limits: RateLimits = msgspec.field(name="_rate_limits")
    #: Where a store-served answer came from and as of when (``{"source", "synced_at"}``);
    #: a handler passes it with :meth:`Envelope.with_cache`, the gate keeps it.
    cache: dict[str, Any] | None = msgspec.field(default=None, name="_cache")


class Pagination(msgspec.Struct, frozen=True):
    #: Relative URL (path and query) of the next page.
    next_page: str


class Envelope(msgspec.Struct, omit_defaults=True, kw_only=True):
    """What every authenticated success answers. ``None`` members are left out."""

    data: Any
    pagination: Pagination | None = msgspec.field(default=None, name="_pagination")
    meta: Meta | None = msgspec.field(default=None, name="_meta")

    #: Extra ``_meta`` members a handler hands to the gate (not sent themselves).
    cache: dict[str, Any] | None = msgspec.field(default=None, name="_cache_for_meta")

    @classmethod
    def page(cls, data: Any, next_page: str | None = None) -> Envelope:
        """``data`` with its next page's URL; no ``_pagination`` member when it is None."""
        return cls(data=data, pagination=Pagination(next_page) if next_page else None)

    def with_cache(self, cache: dict[str, Any]) -> Envelope:
        """This envelope with ``_meta._cache`` (source and as-of time of the data)."""
        self.cache = cache
        return self


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
