"""Secrets at rest: encrypt the upstream credentials and webhook signing secrets stored in clear.

``accounts.upstream_token`` and ``webhook_endpoints.secret`` become ``fernet:<token>``
(``app.crypto.keyring``), in batches, under the first key of RELAY_SECRET_KEYS (or the
embedded default's key file). Values already encrypted are left alone, so a re-run does
nothing. The downgrade decrypts them again. Keys are read only when a row needs them, so an
empty database migrates without any.

Revision ID: 0009_secrets_at_rest
Revises: 0008_request_ids_key_expiry
Create Date: 2026-11-23 13:00:00
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from alembic import op

from app.crypto.keyring import PREFIX, Keyring, is_encrypted, keyring_for
from app.crypto.rewrite import SecretColumn, rewrite_column
from app.settings import Settings

revision: str = "0009_secrets_at_rest"
down_revision: str | None = "0008_request_ids_key_expiry"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copy of the secret columns at this revision.
COLUMNS = (
    SecretColumn("accounts", "upstream_token", "account"),
    SecretColumn("webhook_endpoints", "secret", "webhook endpoint"),
)


def _keyring() -> Keyring:
    """The caller's keyring (``app.db.migrate.upgrade(..., keyring=)``), else the settings'."""
    given = op.get_context().config.attributes.get("keyring")
    return given if given is not None else keyring_for(Settings.from_env())


def _rewrite(needs_work: str, transform: Callable[[Keyring], Callable[[str], str | None]]) -> None:
    driver = op.get_bind().connection.driver_connection  # psycopg, inside the migration's transaction
    for target in COLUMNS:
        (pending,) = driver.execute(
            f"SELECT EXISTS (SELECT 1 FROM {target.table} WHERE {target.column} {needs_work} %s)",
            (PREFIX + "%",),
        ).fetchone()
        if not pending:
            continue
        counts = rewrite_column(driver, target, transform(_keyring()))
        if counts.unreadable:
            noun = target.noun + ("s" if len(counts.unreadable) > 1 else "")
            raise RuntimeError(f"cannot decrypt the {target.column} of {noun} {counts.unreadable} "
                               "with RELAY_SECRET_KEYS")


def upgrade() -> None:
    _rewrite("NOT LIKE", lambda keys: lambda value: None if is_encrypted(value) else keys.encrypt(value))


def downgrade() -> None:
    _rewrite("LIKE", lambda keys: lambda value: keys.decrypt(value) if is_encrypted(value) else None)
