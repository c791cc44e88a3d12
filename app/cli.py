"""The ``relay`` command.

API-side commands live here (the administration groups in ``app.admin.cli``). Commands of the other packages (``relay worker``,
``relay sync``, ``relay sandbox``) are plugged in through the ``relay.commands``
entry-point group declared in pyproject.toml, so ``app`` never imports ``sync``
or ``sandbox``.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

import click

from app.admin.cli import ADMIN_GROUPS
from app.commands import admin_connection, cli_keyring, pass_settings
from app.crypto.cli import secrets as secrets_group
from app.setting_values import SettingsError
from app.settings import Settings

if TYPE_CHECKING:
    from app.db.citus import Step

ENTRY_POINT_GROUP = "relay.commands"


class RelayGroup(click.Group):
    """A click group that also offers the commands registered by other packages, and turns
    a database that cannot be reached into one line (every command, plugged in or not)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.ClickException:
            raise
        except Exception as exc:
            message = unreachable_database(exc)
            if message is None:
                raise
            raise click.ClickException(message) from exc

    def _plugins(self) -> dict:
        return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in self._plugins():
            command = self._plugins()[name].load()
        return command


def unreachable_database(exc: BaseException | None) -> str | None:
    """The one-line message for an error that means the database cannot be reached (refused,
    unknown host, bad password, pool timeout, the embedded server missing), else None."""
    import psycopg
    import psycopg_pool

    from app.db.embedded import EmbeddedDatabaseError

    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:  # SQLAlchemy (migrate) wraps psycopg's error
        seen.add(id(exc))
        if isinstance(exc, EmbeddedDatabaseError):
            return str(exc)
        if isinstance(exc, psycopg.OperationalError | psycopg_pool.PoolTimeout):
            first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            return f"cannot reach the database: {first} (RELAY_DATABASE_URL; unset: the embedded PostgreSQL)"
        exc = exc.__cause__ or exc.__context__
    return None


def load_settings() -> Settings:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from exc




@click.group(cls=RelayGroup)
@click.version_option(package_name="creator-relay", prog_name="relay")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Creator Relay: sync creator-platform accounts into PostgreSQL and serve them."""
    from app.logging import configure_logging

    ctx.obj = load_settings()
    # One-shot commands print their result; the log has only what went wrong. The services
    # (serve, worker, sandbox, demo) configure their own logging.
    configure_logging(ctx.obj, "cli", quiet=True)


@main.command()
@click.option("--revision", default="head", show_default=True, help="Target revision.")
@pass_settings
def migrate(settings: Settings, revision: str) -> None:
    """Bring the database schema to REVISION (head by default); on a Citus coordinator, at
    the head, also distribute the account tables (docs/scaling.md)."""
    from app.db.citus import DistributionError
    from app.db.embedded import resolve_database_url
    from app.db.migrate import migrate as migrate_database
    from app.logging import configure_logging

    keyring = cli_keyring(settings)
    configure_logging(settings, quiet=True)
    try:
        steps = migrate_database(resolve_database_url(settings), revision, keyring=keyring, progress=echo_step)
    except DistributionError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"database migrated to {revision}")
    if steps:
        distributed = sum(step.column is not None for step in steps)
        click.echo(f"Citus coordinator: {distributed} tables distributed by account_id, co-located; "
                   f"{len(steps) - distributed} reference tables")


@main.command()
@click.option("--host", default=None, help="Bind address (default RELAY_API_HOST).")
@click.option("--port", type=int, default=None, help="Port (default RELAY_API_PORT).")
@click.option("--workers", type=int, default=None, help="Processes (default RELAY_API_WORKERS).")
@pass_settings
def serve(settings: Settings, host: str | None, port: int | None, workers: int | None) -> None:
    """Run the HTTP API (and its metrics on RELAY_API_METRICS_PORT when set)."""
    import uvicorn

    from app.logging import configure_logging

    cli_keyring(settings)  # refuse here, in one line, rather than in every API process
    configure_logging(settings, "api")
    port = port or settings.api_port
    _serve_api_metrics(settings, host or settings.api_host, port)
    from app.edge import uvicorn_options  # after the metrics directory is set: it counts refusals

    uvicorn.run(
        "app.asgi:create_app",
        factory=True,
        host=host or settings.api_host,
        port=port,
        workers=workers or settings.api_workers,
        # Named, not "auto": with --workers N on asyncio's own loop every response waited
        # ~40 ms for a delayed ACK (Nagle left on; docs/benchmarks-history.md, "Server stack").
        loop="uvloop",
        # httptools, with the limits of app/edge.py; and the keep-alive timeout.
        **uvicorn_options(settings),
        log_config=None,
        access_log=False,
        # SIGTERM: the listening socket closes at once, requests in flight get this long.
        # Seconds as a float work (uvicorn waits with asyncio.wait_for); its annotation says int.
        timeout_graceful_shutdown=settings.api_shutdown_timeout,  # type: ignore[arg-type]
    )


def _serve_api_metrics(settings: Settings, host: str, port: int) -> None:
    """Multiprocess metrics: every API process writes its samples under one directory, emptied
    here first; this process serves their sum. Set before any API process imports the client."""
    import os
    import shutil

    path = (settings.data_dir / "metrics" / f"api-{port}").resolve()
    shutil.rmtree(path, ignore_errors=True)  # a previous run's counters would add to ours
    path.mkdir(parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(path)
    if settings.api_metrics_port:
        from app.metrics import multiprocess_registry, serve_metrics

        serve_metrics(host, settings.api_metrics_port, multiprocess_registry(path))


@main.command()
@pass_settings
def demo(settings: Settings) -> None:
    """Run the whole stack locally: database, migrations, sandbox, worker and API."""
    from app.demo.run import run_demo

    cli_keyring(settings)
    sys.exit(run_demo(settings))


@main.command()
@click.option("--output", type=click.Path(dir_okay=False, writable=True), default="-", show_default=True,
              help="File to write (- prints it).")
def openapi(output: str) -> None:
    """Write the OpenAPI document the API serves at /docs/openapi.json (no server needed)."""
    from app.openapi.document import openapi_document, render

    with click.open_file(output, "w", encoding="utf-8") as out:
        out.write(render(openapi_document()))


# --- database administration -------------------------------------------------------------------


@main.group()
def db() -> None:
    """Database administration."""


@db.command("grant-readonly")
@click.argument("role")
@click.option("--password", default=None, help="Create ROLE able to log in with this password "
              "(default: a NOLOGIN group role to grant to analysts' own roles).")
@click.option("--org", default=None, help="Organization name or id: ROLE reads only its accounts' rows "
              "(row-level security). Default: every organization's.")
@pass_settings
def db_grant_readonly(settings: Settings, role: str, password: str | None, org: str | None) -> None:
    """Create (or update) a read-only ROLE for analysts: SELECT on the synced tables and views."""
    from app.admin.service import organization_id
    from app.db.readonly import analyst_relations, grant_readonly

    with admin_connection(settings) as conn:
        scope = None if org is None else organization_id(conn, org)
        granted = grant_readonly(conn, role, password=password, organization_id=scope)
    verb = "created" if granted.created else "updated"
    rows = "every organization's rows" if scope is None else f"organization {org}'s rows only (id {scope})"
    click.echo(f"role {role} {verb}: read-only, {rows}; SELECT on {', '.join(analyst_relations())}")


@db.command("recount")
@click.option("--account", "accounts", type=int, multiple=True,
              help="Account id (repeatable). Default: every account.")
@pass_settings
def db_recount(settings: Settings, accounts: tuple[int, ...]) -> None:
    """Rebuild the rollups and ordinals of accounts whose synced rows were changed by hand."""
    from app.store.recount import recount_accounts

    with admin_connection(settings) as conn:
        done = recount_accounts(conn, accounts or None)
    click.echo(f"recounted {done} account(s)")


@db.command("distribute")
@click.option("--offline", is_flag=True, help="Copy each table in one transaction that blocks its writes "
              "(no wal_level = logical needed). Default: online, while the API and workers run.")
@pass_settings
def db_distribute(settings: Settings, offline: bool) -> None:
    """Distribute the account tables of this database on its Citus coordinator, in place:
    each table not yet distributed, co-located by account_id, and the reference tables.
    Safe to run again."""
    from app.db.citus import DistributionError, Method, distribute

    with admin_connection(settings) as conn:
        try:
            steps = distribute(conn, online=not offline, progress=echo_step)
        except DistributionError as exc:
            raise click.ClickException(str(exc)) from exc
    done = sum(step.method is not Method.SKIPPED for step in steps)
    click.echo(f"{done} tables converted, {len(steps) - done} already were")


def echo_step(step: Step) -> None:
    """One line per table as :func:`app.db.citus.distribute` reaches and finishes it."""
    from app.db.citus import Method

    if step.method is Method.SKIPPED:
        click.echo(f"  {step.table}: already {'distributed' if step.column else 'a reference table'}")
    elif step.seconds is None:
        rows = f" (~{step.rows:,} rows)" if step.rows else ""
        click.echo(f"  {step.table}: {step.method.value}{rows}...")
    else:
        click.echo(f"  {step.table}: done in {step.seconds:.1f} s")


for _group in ADMIN_GROUPS:
    main.add_command(_group)
main.add_command(secrets_group)

if __name__ == "__main__":
    main()
