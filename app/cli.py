"""The ``relay`` command.

API-side commands live here. Commands of the other packages (``relay worker``,
``relay sync``, ``relay sandbox``) are plugged in through the ``relay.commands``
entry-point group declared in pyproject.toml, so ``app`` never imports ``sync``
or ``sandbox``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points

import click
import psycopg

from app.settings import Settings, SettingsError

ENTRY_POINT_GROUP = "relay.commands"


class RelayGroup(click.Group):
    """A click group that also offers the commands registered by other packages."""

    def _plugins(self) -> dict:
        return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in self._plugins():
            command = self._plugins()[name].load()
        return command


def load_settings() -> Settings:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from exc


pass_settings = click.make_pass_decorator(Settings)


@click.group(cls=RelayGroup)
@click.pass_context
def main(ctx: click.Context) -> None:
    """Creator Relay: sync creator-platform accounts into PostgreSQL and serve them."""
    ctx.obj = load_settings()


@main.command()
@click.option("--revision", default="head", show_default=True, help="Target revision.")
@pass_settings
def migrate(settings: Settings, revision: str) -> None:
    """Bring the database schema to REVISION (head by default)."""
    from app.db.embedded import resolve_database_url
    from app.db.migrate import upgrade
    from app.logging import configure_logging

    configure_logging(settings)
    upgrade(resolve_database_url(settings), revision)
    click.echo(f"database migrated to {revision}")


@main.command()
@click.option("--host", default=None, help="Bind address (default RELAY_API_HOST).")
@click.option("--port", type=int, default=None, help="Port (default RELAY_API_PORT).")
@click.option("--workers", type=int, default=None, help="Processes (default RELAY_API_WORKERS).")
@pass_settings
def serve(settings: Settings, host: str | None, port: int | None, workers: int | None) -> None:
    """Run the HTTP API (and its metrics on RELAY_API_METRICS_PORT when set)."""
    import uvicorn

    from app.logging import configure_logging

    configure_logging(settings, "api")
    port = port or settings.api_port
    _serve_api_metrics(settings, host or settings.api_host, port)
    uvicorn.run(
        "app.asgi:create_app",
        factory=True,
        host=host or settings.api_host,
        port=port,
        workers=workers or settings.api_workers,
        log_config=None,
        access_log=False,
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
    from app.demo import run_demo

    sys.exit(run_demo(settings))


# --- administration: organizations, keys, accounts, credits ---------------------------------


@contextmanager
def admin_connection(settings: Settings) -> Iterator[psycopg.Connection]:
    """One autocommit connection for one admin command; refusals become CLI errors."""
    from app.admin import AdminError
    from app.db.embedded import resolve_database_url
    from app.db.urls import plain_url

    with psycopg.connect(plain_url(resolve_database_url(settings)), autocommit=True) as conn:
        try:
            yield conn
        except AdminError as exc:
            raise click.ClickException(str(exc)) from exc


@main.group()
def orgs() -> None:
    """Organizations: the tenants that own keys, accounts, rate windows and credits."""


@orgs.command("create")
@click.argument("name")
@click.option("--limit-minute", type=int, default=None, help="Requests per minute (default RELAY_DEFAULT_LIMIT_MINUTE).")
@click.option("--limit-day", type=int, default=None, help="Requests per day (default RELAY_DEFAULT_LIMIT_DAY).")
@click.option("--credits", type=int, default=0, show_default=True, help="Initial credit balance.")
@pass_settings
def orgs_create(settings: Settings, name: str, limit_minute: int | None, limit_day: int | None, credits: int) -> None:
    """Create organization NAME."""
    from app.admin import create_organization

    with admin_connection(settings) as conn:
        org_id = create_organization(
            conn, name, settings=settings, limit_minute=limit_minute, limit_day=limit_day, credits=credits
        )
    click.echo(f"organization {name!r} created (id {org_id})")


@main.group()
def keys() -> None:
    """API keys: created for an organization with a role; shown once."""


@keys.command("create")
@click.option("--org", required=True, help="Organization name or id.")
@click.option("--role", required=True, help="Role: admin, reader, analytics or messaging.")
@click.option("--name", default=None, help="A label for the key.")
@pass_settings
def keys_create(settings: Settings, org: str, role: str, name: str | None) -> None:
    """Create a key and print it. It is shown this once and stored only hashed."""
    from app.admin import create_key

    with admin_connection(settings) as conn:
        created = create_key(conn, org, role, name=name)
    click.echo(f"key {created.id} ({created.prefix}..., role {created.role}); store it now, it is not shown again:", err=True)
    click.echo(created.secret)


@keys.command("revoke")
@click.argument("key_id", type=int)
@pass_settings
def keys_revoke(settings: Settings, key_id: int) -> None:
    """Revoke key KEY_ID; it stops working at once."""
    from app.admin import revoke_key

    with admin_connection(settings) as conn:
        revoke_key(conn, key_id)
    click.echo(f"key {key_id} revoked")


@main.group()
def accounts() -> None:
    """Connected upstream accounts."""


@accounts.command("connect")
@click.option("--org", required=True, help="Organization name or id.")
@click.option("--account-id", type=int, required=True, help="The upstream numeric account id.")
@click.option("--token", required=True, help="The account's upstream credential.")
@click.option("--label", default=None, help="A label for the account.")
@pass_settings
def accounts_connect(settings: Settings, org: str, account_id: int, token: str, label: str | None) -> None:
    """Link an upstream account and its credential to an organization."""
    from app.admin import connect_account

    with admin_connection(settings) as conn:
        connect_account(conn, org, account_id, token, label=label)
    click.echo(f"account {account_id} connected to {org!r}")


@main.group()
def credits() -> None:
    """Credit balances."""


@credits.command("add")
@click.option("--org", required=True, help="Organization name or id.")
@click.argument("amount", type=int)
@click.option("--note", default=None, help="Why (kept with the grant).")
@pass_settings
def credits_add(settings: Settings, org: str, amount: int, note: str | None) -> None:
    """Add AMOUNT credits to an organization's balance."""
    from app.admin import add_credits

    with admin_connection(settings) as conn:
        balance = add_credits(conn, org, amount, note=note)
    click.echo(f"{amount} credits added; balance {balance}")


# --- database administration -------------------------------------------------------------------


@main.group()
def db() -> None:
    """Database administration."""


@db.command("grant-readonly")
@click.argument("role")
@click.option("--password", default=None, help="Create ROLE able to log in with this password "
              "(default: a NOLOGIN group role to grant to analysts' own roles).")
@pass_settings
def db_grant_readonly(settings: Settings, role: str, password: str | None) -> None:
    """Create (if missing) a read-only ROLE for analysts: SELECT on the synced tables and views."""
    from app.db.readonly import ANALYST_RELATIONS, grant_readonly

    with admin_connection(settings) as conn:
        created = grant_readonly(conn, role, password=password)
    verb = "created" if created else "updated"
    click.echo(f"role {role} {verb}: read-only, SELECT on {', '.join(ANALYST_RELATIONS)}")


if __name__ == "__main__":
    main()
