"""The sync state of one (account, resource), as stored in ``sync_state.cursor`` (JSONB).

Three frozen Structs name every field of the stored JSON (docs/sync.md, "Passes, pages and
the cursor")::

    {"partitions": {"<name>": {"coverage": [start, end] | null,
                               "incremental" | "backfill" | "reconcile":
                                   {"lo": s | null, "hi": s, "position": {...} | null} | null}},
     "lookback_at": s, "head": <the head check's marks>}

``P`` is the resource's position Struct (``Cursor.position_type``, ``sync.cursors``). The
state is decoded once where it is read (``sync.state.load_cursor``) and encoded once where
it is written (the page's bookkeeping, a head check's coverage), to the same JSON the
dict-based code wrote: a member that code had not set yet is ``UNSET`` and stays absent, one
it had set to null stays null. So states stored before the Structs decode as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Generic, Literal, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

P = TypeVar("P")

#: ``[start, end]``, unix seconds, both inclusive: every row of the partition in it is stored.
Coverage = tuple[int, int]
Kind = Literal["incremental", "backfill", "reconcile"]
KINDS: tuple[Kind, ...] = ("incremental", "backfill", "reconcile")


class PassState(msgspec.Struct, Generic[P], frozen=True):
    """An unfinished pass over ``[lo, hi]`` (``lo`` None: from the beginning); ``position``
    names the next page to fetch (None: the first)."""

    lo: int | None
    hi: int
    position: P | None


class PartitionState(msgspec.Struct, Generic[P], frozen=True):
    """One partition: what the store covers of it, and its unfinished pass of each kind."""

    coverage: Coverage | None = None
    incremental: PassState[P] | None | UnsetType = UNSET
    backfill: PassState[P] | None | UnsetType = UNSET
    reconcile: PassState[P] | None | UnsetType = UNSET

    def pass_of(self, kind: Kind) -> PassState[P] | None:
        """The unfinished pass of ``kind``, if any."""
        found = getattr(self, kind)
        return None if found is UNSET else found

    def pending(self) -> set[Kind]:
        return {kind for kind in KINDS if self.pass_of(kind) is not None}

    def with_pass(self, kind: Kind, pending: PassState[P] | None, coverage: Coverage | None) -> PartitionState[P]:
        """The partition after a page or a pass: ``pending`` None once the pass completed."""
        return msgspec.structs.replace(self, coverage=coverage, **{kind: pending})


class CursorState(msgspec.Struct, Generic[P], frozen=True):
    """The whole ``sync_state.cursor``: the partitions by name, when the last lookback
    re-read began (upstream seconds) and the marks of the last head check (``sync.heads``;
    the posts' counters, None for the checks that keep none)."""

    partitions: dict[str, PartitionState[P]] = msgspec.field(default_factory=dict)
    lookback_at: int | UnsetType = UNSET
    head: Any = UNSET

    @property
    def last_lookback(self) -> int | None:
        return None if self.lookback_at is UNSET else self.lookback_at

    @property
    def head_marks(self) -> Any:
        return None if self.head is UNSET else self.head

    def with_partitions(self, names: Iterable[str]) -> CursorState[P]:
        """The state with a new, uncovered partition for each of ``names`` it lacks."""
        missing: dict[str, PartitionState[P]] = {
            name: PartitionState() for name in names if name not in self.partitions
        }
        if not missing:
            return self
        return msgspec.structs.replace(self, partitions={**self.partitions, **missing})

    def with_partition(self, name: str, partition: PartitionState[P]) -> CursorState[P]:
        return msgspec.structs.replace(self, partitions={**self.partitions, name: partition})


@functools.cache
def _decoder(position_type: type) -> msgspec.json.Decoder:
    return msgspec.json.Decoder(CursorState[position_type])  # type: ignore[valid-type]


def decode_cursor(stored: bytes | str | None, position_type: type) -> CursorState[Any]:
    """The stored JSON (None: a pair never synced) as the state of a resource whose
    positions are ``position_type``."""
    if stored is None:
        return CursorState()
    return _decoder(position_type).decode(stored)


def encode_cursor(value: CursorState[Any]) -> bytes:
    return msgspec.json.encode(value)
