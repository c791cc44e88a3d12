"""Fair shares: what one organization may hold at once in one API process.

Three shares, each a setting (how to size them: docs/operations.md, "Fair shares"):

- ``EXPORTS``: exports streaming (``RELAY_ORG_SHARE_EXPORTS``);
- ``LIVE_CALLS``: upstream calls in flight for the organization's live answers
  (``RELAY_ORG_SHARE_LIVE_CALLS``), so one organization's slow accounts cannot take the
  process's shared upstream connection pool;
- ``EXPENSIVE_READS``: the store's aggregates over long windows (``RELAY_ORG_SHARE_EXPENSIVE_READS``).

A route that holds a share for its whole request declares it, as it declares its
permission: ``@v1_get(path, permission=..., share=EXPORTS)``; the gate takes it after the
credit check and gives it back when the response has gone (a streamed export: its last
byte). Live calls are held by ``app.upstream.relay.relay`` around the upstream call itself, so a
store-served route that falls back to the upstream holds one only while it calls.

Past its share an organization is refused at once, never queued (a queued request would
still hold its connection and its task): 429 ``concurrency_limit`` with ``Retry-After``,
charged nothing (docs/api-decisions.md, "Fair shares"). Counters live in the process: each
API process gives every organization its own shares.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.errors import ApiError
from app.gate.state import current_gate
from app.metrics import GATE_REFUSALS

EXPORTS = "exports"
LIVE_CALLS = "live_calls"
EXPENSIVE_READS = "expensive_reads"
SHARES = (EXPORTS, LIVE_CALLS, EXPENSIVE_READS)

#: Seconds a refused client is asked to wait: a share frees when one of the organization's
#: own requests ends, which the process cannot foresee; most end within a second.
RETRY_AFTER = 1

_WHAT = {
    EXPORTS: "exports streaming",
    LIVE_CALLS: "live upstream calls in flight",
    EXPENSIVE_READS: "aggregate reads in flight",
}


def concurrency_limit(share: str, limit: int) -> ApiError:
    message = (
        f"this organization already has {limit} {_WHAT[share]} on this server (its share); "
        "retry when one has finished"
    )
    return ApiError(429, message, "concurrency_limit", headers={"Retry-After": str(RETRY_AFTER)})


class Held:
    """One unit of a share, held until ``release`` (idempotent); a context manager too."""

    __slots__ = ("_key", "_shares")

    def __init__(self, shares: Shares, key: tuple[str, int]) -> None:
        self._shares: Shares | None = shares
        self._key = key

    def release(self) -> None:
        if self._shares is not None:
            self._shares._release(self._key)
            self._shares = None

    def __enter__(self) -> Held:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Shares:
    """The process's counters: (share, organization) -> units held. Only the event loop's
    thread touches them, so a plain dict is exact; an organization holding nothing has no entry."""

    def __init__(self, limits: Mapping[str, int]) -> None:
        unknown = set(limits) - set(SHARES)
        if unknown:
            raise ValueError(f"unknown shares: {sorted(unknown)}")
        self.limits = dict(limits)
        self._held: dict[tuple[str, int], int] = {}

    @classmethod
    def from_settings(cls, settings) -> Shares:
        return cls({
            EXPORTS: settings.org_share_exports,
            LIVE_CALLS: settings.org_share_live_calls,
            EXPENSIVE_READS: settings.org_share_expensive_reads,
        })

    def take(self, share: str, organization_id: int) -> Held:
        """One unit of ``share`` for the organization, or the 429 past its share."""
        key = (share, organization_id)
        held = self._held.get(key, 0)
        limit = self.limits[share]
        if held >= limit:
            GATE_REFUSALS.labels(429).inc()
            raise concurrency_limit(share, limit)
        self._held[key] = held + 1
        return Held(self, key)

    def held(self, share: str, organization_id: int) -> int:
        return self._held.get((share, organization_id), 0)

    def _release(self, key: tuple[str, int]) -> None:
        left = self._held[key] - 1
        if left:
            self._held[key] = left
        else:
            del self._held[key]


def take_for_request(share: str) -> Held:
    """One unit of ``share`` for the current gated request's organization (the process's
    ``Shares`` is the app's ``state.shares``)."""
    gate = current_gate()
    return gate.scope["app"].state.shares.take(share, gate.result.organization_id)
