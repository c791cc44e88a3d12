"""Encryption of the secrets the database keeps: upstream credentials, webhook signing secrets.

A stored secret is ``fernet:`` followed by a Fernet token (AES-128-CBC with HMAC-SHA256,
from the ``cryptography`` package). The prefix tells an encrypted value from a clear one,
so the migration that encrypts existing rows and ``relay secrets rotate`` can run twice.

The keys are a list: the first encrypts, every one decrypts (``MultiFernet``), so a rotation
puts a new key in front, re-encrypts every row (``relay secrets rotate``), then drops the old
key. Where they come from (``load_keyring``): RELAY_SECRET_KEYS when set; else, with the
embedded database, the key file ``<data_dir>/secret_keys``, created (mode 0600) on first
run and refused when others may read it; a configured database without RELAY_SECRET_KEYS is refused (``MissingSecretKeys``).

No message made here contains a secret or its ciphertext: callers add the account or
endpoint the value belongs to, never the value.
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from app.crypto.keys import generate_key, is_fernet_key, secret_key_list
from app.settings import Settings

PREFIX = "fernet:"

#: Decrypted values kept per process, by ciphertext: the gate reads an account's credential
#: on every request that calls the upstream, and a Fernet decryption (HMAC check plus AES)
#: costs far more than a dictionary lookup (docs/operations.md, "Secrets at rest").
DECRYPT_CACHE_SIZE = 4096

KEY_FILE = "secret_keys"

MISSING_KEYS = (
    "RELAY_SECRET_KEYS is not set: with RELAY_DATABASE_URL, upstream credentials and webhook "
    "secrets are encrypted with keys you provide. Generate one with `relay secrets generate-key` "
    "and set RELAY_SECRET_KEYS=<key> for every relay process (docs/operations.md, \"Secrets at rest\")."
)


class SecretsError(Exception):
    """A secret cannot be stored or read; the message never contains one."""


class MissingSecretKeys(SecretsError):
    def __init__(self) -> None:
        super().__init__(MISSING_KEYS)


class UnreadableSecret(SecretsError):
    """A stored value that no key of the keyring decrypts (a lost or removed key), or one
    stored in clear."""


def is_encrypted(stored: str) -> bool:
    return stored.startswith(PREFIX)


class Keyring:
    """The process's keys: ``encrypt`` with the first, ``decrypt`` with any."""

    def __init__(self, keys: list[str]) -> None:
        if not keys:
            raise MissingSecretKeys()
        self._fernets = [Fernet(key.encode("ascii")) for key in keys]
        self._multi = MultiFernet(self._fernets)
        self.size = len(keys)
        # Per instance, so tests with other keys never see these values.
        self._decrypt_cached = functools.lru_cache(maxsize=DECRYPT_CACHE_SIZE)(self._decrypt)

    def encrypt(self, plain: str) -> str:
        return PREFIX + self._multi.encrypt(plain.encode()).decode("ascii")

    def decrypt(self, stored: str) -> str:
        """The clear value of ``stored``; ``UnreadableSecret`` when no key opens it."""
        return self._decrypt_cached(stored)

    def _decrypt(self, stored: str) -> str:
        if not is_encrypted(stored):
            raise UnreadableSecret("stored in clear (run `relay migrate`, then `relay secrets rotate`)")
        try:
            return self._multi.decrypt(stored[len(PREFIX):].encode("ascii")).decode()
        except (InvalidToken, UnicodeError):
            raise UnreadableSecret("no key of RELAY_SECRET_KEYS decrypts it (a lost or removed key?)") from None

    def is_current(self, stored: str) -> bool:
        """Whether ``stored`` is encrypted with the first (newest) key."""
        if not is_encrypted(stored):
            return False
        try:
            self._fernets[0].decrypt(stored[len(PREFIX):].encode("ascii"))
        except (InvalidToken, UnicodeError):
            return False
        return True

    def reencrypt(self, stored: str) -> str | None:
        """``stored`` under the newest key (a clear value is encrypted); None when it is
        already; ``UnreadableSecret`` when no key opens it."""
        if self.is_current(stored):
            return None
        plain = self.decrypt(stored) if is_encrypted(stored) else stored
        return self.encrypt(plain)


def key_file(settings: Settings) -> Path:
    return settings.data_dir.resolve() / KEY_FILE


def check_private(path: Path) -> None:
    """``SecretsError`` when others than its owner may read or write the key file ``path``
    (like ssh with a private key): a copy of the key opens every stored secret."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise SecretsError(
            f"{path} is readable or writable by others (mode {mode:04o}) and holds the keys of the "
            f"stored secrets: restrict it with `chmod 600 {path}` (docs/operations.md, \"Secrets at rest\")"
        )


def _embedded_keys(path: Path) -> list[str]:
    """The embedded default's keys: read from ``path``, written there first on first run;
    ``SecretsError`` when others may read it (``check_private``).

    The new file is written whole under a temporary name (mode 0600: only this user reads
    it), then linked into place, which fails if it exists: two processes starting together
    both end up with the key of the one that linked first, and no one reads a half file."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(generate_key() + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    check_private(path)
    keys = secret_key_list(path.read_text())
    if not keys or not all(map(is_fernet_key, keys)):
        raise SecretsError(f"{path} must hold Fernet keys, one a line, the newest first")
    return keys


def key_list(settings: Settings) -> list[str]:
    """The keys for these settings, newest first (see the module's docstring);
    ``MissingSecretKeys`` with a configured database and no RELAY_SECRET_KEYS."""
    keys = secret_key_list(settings.secret_keys)
    if keys:
        return keys
    if settings.database_url:
        raise MissingSecretKeys()
    return _embedded_keys(key_file(settings))


def load_keyring(settings: Settings) -> Keyring:
    return Keyring(key_list(settings))


#: One keyring (and its cache of decrypted values) per settings in a process.
keyring_for = functools.cache(load_keyring)
