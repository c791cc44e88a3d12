"""Deterministic randomness: every value is a pure function of (seed, account, resource, index).

Never use the ``random`` module's global state in the sandbox. Derive a key once per
(seed, account, resource) with :func:`derive_key` (cache it), then build one :class:`Rng`
per row with ``Rng(key, index)``: the row's draws are then independent of which other rows
were generated before, so page 5,000 costs the same as page 1 and the same request always
gives the same answer.

The generator is splitmix64: a handful of integer operations per draw, fast enough for the
hot path (a 1,000-row earnings page draws about ten values per row).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def derive_key(*parts: object) -> int:
    """A 64-bit key from any parts (seed, account id, resource name, ...), stable across runs."""
    text = "|".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def mix64(value: int) -> int:
    """The splitmix64 finaliser: a well-spread 64-bit hash of a 64-bit integer."""
    z = value & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Rng:
    """A small deterministic stream of random values for one (key, index)."""

    __slots__ = ("_state",)

    def __init__(self, key: int, index: int = 0) -> None:
        # Mix the index in before the first draw so neighbouring indexes are unrelated.
        self._state = mix64(key ^ ((index + 1) * _GOLDEN))

    def next64(self) -> int:
        self._state = (self._state + _GOLDEN) & _MASK
        return mix64(self._state)

    def random(self) -> float:
        """A float in [0, 1)."""
        return (self.next64() >> 11) * (1.0 / 9007199254740992.0)

    def below(self, n: int) -> int:
        """An integer in [0, n). The tiny modulo bias is irrelevant for test data."""
        return self.next64() % n

    def randint(self, low: int, high: int) -> int:
        """An integer in [low, high], both included."""
        return low + self.next64() % (high - low + 1)

    def chance(self, probability: float) -> bool:
        return self.random() < probability

    def choice(self, items: Sequence[T]) -> T:
        return items[self.next64() % len(items)]

    def weighted(self, items: Sequence[T], cumulative: Sequence[float]) -> T:
        """Pick from items with cumulative weights (last one is the total)."""
        x = self.random() * cumulative[-1]
        for item, bound in zip(items, cumulative, strict=True):
            if x < bound:
                return item
        return items[-1]


def rng_for(seed: int, account_id: int | str, resource: str, index: int) -> Rng:
    """Convenience for code off the hot path: one Rng for (seed, account, resource, index)."""
    return Rng(derive_key(seed, account_id, resource), index)
