"""The ``relay`` command.

API-side commands live here. Commands of the other packages (``relay worker``,
``relay sync``, ``relay sandbox``) are plugged in through the ``relay.commands``
entry-point group declared in pyproject.toml, so ``app`` never imports ``sync``
or ``sandbox``.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import click

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
    """Run the HTTP API."""
    import uvicorn

    uvicorn.run(
        "app.asgi:create_app",
        factory=True,
        host=host or settings.api_host,
        port=port or settings.api_port,
        workers=workers or settings.api_workers,
        log_config=None,
        access_log=False,
    )


@main.command()
@pass_settings
def demo(settings: Settings) -> None:
    """Run the whole stack locally: database, migrations, sandbox, worker and API."""
    from app.demo import run_demo

    sys.exit(run_demo(settings))


if __name__ == "__main__":
    main()
