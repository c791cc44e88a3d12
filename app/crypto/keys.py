"""Fernet keys as text: parsing a list of them, checking one, making one.

No other module of ``app`` is imported here: ``app.settings`` checks RELAY_SECRET_KEYS with it.
"""

from __future__ import annotations

import base64
import secrets

#: A Fernet key: 32 random bytes in url-safe base64.
KEY_BYTES = 32


def secret_key_list(raw: str) -> list[str]:
    """The keys of a RELAY_SECRET_KEYS value (or of the embedded key file), newest first:
    commas, spaces or new lines between them."""
    return raw.replace(",", " ").split()


def is_fernet_key(key: str) -> bool:
    """Whether ``key`` is 32 bytes in url-safe base64 (what ``generate_key`` makes)."""
    try:
        return len(key) == 44 and len(base64.urlsafe_b64decode(key.encode("ascii"))) == KEY_BYTES
    except (ValueError, UnicodeEncodeError):
        return False


def generate_key() -> str:
    """A new random Fernet key (``relay secrets generate-key``)."""
    return base64.urlsafe_b64encode(secrets.token_bytes(KEY_BYTES)).decode("ascii")
