"""API keys: their format, how they are hashed, and where a request carries one.

A key is ``crk_live_`` followed by 43 URL-safe base64 characters (32 random bytes). The
fixed prefix lets secret scanners recognise a leaked key; the randomness makes guessing
hopeless. The key is shown once, when it is created; the database keeps only its SHA-256
digest (a slow password hash buys nothing for 256 random bits) and a short visible prefix
so an operator can tell keys apart in listings.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

KEY_PREFIX = "crk_live_"
_RANDOM_BYTES = 32
#: Characters of the key kept in clear in ``api_keys.prefix`` (the fixed part and 6 more).
VISIBLE_CHARS = len(KEY_PREFIX) + 6
KEY_PATTERN = re.compile(r"crk_live_[A-Za-z0-9_-]{43}")
#: Most keys a process keeps the digest of (``KeyDigests``); past it, it starts again.
MAX_DIGESTS = 10_000


@dataclass(frozen=True, slots=True)
class NewKey:
    """A freshly generated key: ``secret`` is shown once and never stored."""

    secret: str = ""
    prefix: str = ""
    digest: bytes = b""

    def __repr__(self) -> str:  # keep the secret out of logs and tracebacks
        return f"NewKey(prefix={self.prefix!r})"


def generate_key() -> NewKey:
    secret = KEY_PREFIX + secrets.token_urlsafe(_RANDOM_BYTES)
    return NewKey(secret=secret, prefix=secret[:VISIBLE_CHARS], digest=key_digest(secret))


def key_digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


class KeyDigests:
    """The digests of the keys the gatekeeper admitted from what it holds, by key.

    A busy key is presented thousands of times a second; inside the app its SHA-256 cost
    3-5 µs a request (OpenSSL's state gone cold between requests), a sizeable part of the
    gate's own cost (docs/benchmarks.md). Only keys the gatekeeper knows enter (a key that
    was never valid is hashed at each request, as before), at most ``MAX_DIGESTS``, and
    they leave with everything else it holds whenever keys change (``Gatekeeper.forget``):
    a revoked key's secret does not stay in the process. It decides nothing: the digest is
    looked up as before.
    """

    __slots__ = ("_held", "_most", "known")

    def __init__(self, most: int = MAX_DIGESTS) -> None:
        self._held: dict[bytes, bytes] = {}
        self._most = most
        #: The digest of a key remembered before, or None.
        self.known = self._held.get

    def remember(self, key: bytes, digest: bytes) -> None:
        if len(self._held) >= self._most:
            self._held.clear()  # bounded; the keys in use come back at their next request
        self._held[key] = digest

    def clear(self) -> None:
        self._held.clear()

    def __len__(self) -> int:
        return len(self._held)


def digests_match(stored: bytes, presented: bytes) -> bool:
    """Constant-time equality of two digests (the final check after the index lookup)."""
    return hmac.compare_digest(stored, presented)


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key a request carries, or None when it carries none we could accept.

    ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. Both may be sent only if they
    agree. Anything that does not look like one of our keys is refused before any database
    work (it cannot match a stored digest anyway).
    """
    candidates = set()
    authorization = headers.get("authorization")
    if authorization:
        scheme, _, value = authorization.strip().partition(" ")
        if scheme.lower() != "bearer":
            return None
        candidates.add(value.strip())
    header_key = headers.get("x-api-key")
    if header_key:
        candidates.add(header_key.strip())
    if len(candidates) != 1:
        return None
    (key,) = candidates
    return key if KEY_PATTERN.fullmatch(key) else None
