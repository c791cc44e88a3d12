"""``relay export RESOURCE --account ID [--since --until] --format --output FILE``: the
export route's bytes written to a file, with a progress bar."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC
from pathlib import Path

import click
import psycopg
from rich.progress import Progress

from app.cli import load_settings
from app.db.embedded import resolve_database_url
from app.db.urls import plain_url
from app.exports import rows as store
from app.exports.columns import RESOURCES
from app.exports.files import private_file
from app.exports.run import OutsideCoverage, checked_window, encoded

_DATES = ["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]


async def _export(database_url: str, account: int, resource: str, fmt: str, since, until, output: Path, batch: int, progress: bool) -> int:
    async with await psycopg.AsyncConnection.connect(plain_url(database_url)) as conn:
        try:
            start, end = await checked_window(conn, account, resource, since, until)
        except OutsideCoverage as exc:
            raise click.ClickException(str(exc)) from None
        total = await store.count_rows(conn, account, resource, start, end)
        written = 0
        # Created 0600 like every file relay writes: an export is an account's financial data.
        with Progress(disable=not progress) as bar, os.fdopen(private_file(output), "wb") as out:
            task = bar.add_task(f"{resource} -> {output.name}", total=total)

            def advance(rows: int) -> None:
                bar.advance(task, rows)

            batches = encoded(store.same_connection(conn), account, resource, fmt, start, end, batch=batch, on_rows=advance)
            async for chunk in batches:
                out.write(chunk)
                written += len(chunk)
        return total


@click.command("export")
@click.argument("resource", type=click.Choice(list(RESOURCES)))
@click.option("--account", type=int, required=True, help="The account id.")
@click.option("--since", type=click.DateTime(_DATES), default=None, help="Window start (UTC); default: coverage start.")
@click.option("--until", type=click.DateTime(_DATES), default=None, help="Window end (UTC); default: coverage end.")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--progress/--no-progress", default=True, show_default=True)
@click.pass_context
def export(ctx, resource, account, since, until, fmt, output, progress) -> None:
    """Write every stored row of RESOURCE in the window (inside the stored coverage) to OUTPUT."""
    root = ctx.find_root()
    settings = root.obj if root.obj is not None else load_settings()
    start, end = (None if d is None else d.replace(tzinfo=UTC) for d in (since, until))
    rows = asyncio.run(_export(resolve_database_url(settings), account, resource, fmt, start, end, output,
                               settings.export_batch_rows, progress))
    click.echo(f"{rows} rows written to {output}", err=True)
