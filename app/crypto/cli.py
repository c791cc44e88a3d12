"""``relay secrets generate-key|rotate``, and the key check of the commands that need keys."""

from __future__ import annotations

import logging
import os
import socket

import click

from app.commands import admin_connection, cli_keyring, pass_settings
from app.settings import Settings

logger = logging.getLogger(__name__)

@click.group()
def secrets() -> None:
    """Keys of the upstream credentials and webhook secrets stored encrypted (docs/operations.md)."""


@secrets.command("generate-key")
def generate_key_command() -> None:
    """Print a new random key for RELAY_SECRET_KEYS."""
    from app.crypto.keys import generate_key

    click.echo(generate_key())


@secrets.command("rotate")
@click.option("--batch", type=click.IntRange(min=1), default=500, show_default=True,
              help="Rows re-encrypted per transaction.")
@pass_settings
def rotate(settings: Settings, batch: int) -> None:
    """Re-encrypt every stored secret under the first key of RELAY_SECRET_KEYS.

    Safe to run again and while the API and workers run (each batch only replaces values
    that did not change meanwhile). Then drop the old keys from RELAY_SECRET_KEYS."""
    from app.crypto.rewrite import SECRET_COLUMNS, RewriteCounts, rotate_all
    from app.logging import configure_logging

    keyring = cli_keyring(settings)
    configure_logging(settings, quiet=True)

    def progress(counts: RewriteCounts) -> None:
        click.echo(f"{counts.table}.{counts.column}: {counts.scanned} read, "
                   f"{counts.rewritten} re-encrypted", err=True)

    with admin_connection(settings) as conn:
        results = rotate_all(conn, keyring, worker=f"{socket.gethostname()}:{os.getpid()}",
                             batch=batch, progress=progress)
    logger.info("secrets_rotated", extra={"columns": [r.as_record() for r in results]})
    for counts in results:
        click.echo(f"{counts.table}.{counts.column}: {counts.rewritten} of {counts.scanned} "
                   "re-encrypted under the newest key")
    nouns = {target.table: target.noun for target in SECRET_COLUMNS}
    unreadable = [f"{nouns[r.table]}s {', '.join(map(str, r.unreadable))}" for r in results if r.unreadable]
    if unreadable:
        raise click.ClickException(
            f"no key of RELAY_SECRET_KEYS decrypts the secrets of {'; '.join(unreadable)}: add the "
            "key they were stored with, or reconnect those accounts and re-add those endpoints"
        )
