"""What every ``relay`` command shares: the settings it is given, its database connection,
its encryption keys, and how it prints a listing (a table, or JSON with ``--json``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime

import click
import psycopg

from app.crypto.keyring import Keyring, SecretsError, keyring_for
from app.settings import Settings

pass_settings = click.make_pass_decorator(Settings)

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")


def _plain(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def emit(rows: list[dict] | dict, as_json: bool, columns: Sequence[str] | None = None) -> None:
    """Print rows as JSON (``--json``) or as an aligned table of ``columns``."""
    if as_json:
        json.dump(rows, sys.stdout, indent=2, default=_plain)
        sys.stdout.write("\n")
        return
    if isinstance(rows, dict):
        width = max(map(len, rows))
        for key, value in rows.items():
            if not isinstance(value, list):
                click.echo(f"{key:<{width}}  {_cell(value)}")
        return
    if not rows:
        click.echo("(none)")
        return
    columns = list(columns or rows[0])
    cells = [[_cell(row[c]) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    for r in cells:
        click.echo("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value)


@contextmanager
def admin_connection(settings: Settings) -> Iterator[psycopg.Connection]:
    """One autocommit connection for one admin command; refusals become CLI errors."""
    from app.admin.service import AdminError
    from app.db.embedded import resolve_database_url
    from app.db.urls import plain_url

    with psycopg.connect(plain_url(resolve_database_url(settings)), autocommit=True) as conn:
        try:
            yield conn
        except AdminError as exc:
            raise click.ClickException(str(exc)) from exc



def cli_keyring(settings: Settings) -> Keyring:
    """The settings' keys, or the command stops with the one-line reason (no key configured
    for a configured database, a bad key file)."""
    try:
        return keyring_for(settings)
    except SecretsError as exc:
        raise click.ClickException(str(exc)) from None
