"""The ground-truth checksum, recomputable by any program from row payloads alone.

For each row build its key string (per resource, see docs/upstream.md), take the first 8
bytes of SHA-256 of its UTF-8 encoding as a big-endian unsigned integer, sum those modulo
2**64 and write the sum as 16 lowercase hex digits. Order-independent, so pages may arrive
in any order; a missing, duplicated or stale row changes it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

_MASK = (1 << 64) - 1


def key_hash(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def checksum(keys: Iterable[str]) -> dict:
    """``{"count": n, "checksum": "<16 hex>"}`` over the row keys."""
    total = 0
    count = 0
    for key in keys:
        total = (total + key_hash(key)) & _MASK
        count += 1
    return {"count": count, "checksum": f"{total:016x}"}


def money(cents: int) -> str:
    """Cents as the two-decimal string used in keys (``net`` 7.99 -> ``"7.99"``)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"
