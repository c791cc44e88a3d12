"""``relay webhooks add|list|disable|redeliver`` (plugged into ``relay`` by an entry point)."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from app.cli import load_settings
from app.commands import admin_connection, cli_keyring
from app.settings import Settings
from app.webhooks import endpoints


def _settings(ctx: click.Context) -> Settings:
    root = ctx.find_root()
    return root.obj if root.obj is not None else load_settings()


def _connection(ctx: click.Context):
    return admin_connection(_settings(ctx))


@click.group()
def webhooks() -> None:
    """Webhook endpoints: where an organization's events are delivered (docs/events.md)."""


@webhooks.command("add")
@click.option("--org", required=True, help="Organization name or id.")
@click.option("--url", required=True, help="The receiver's URL (http:// or https://; a public address unless "
              "RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES).")
@click.option("--events", "types", default=None, help="Comma-separated event types (default: all).")
@click.pass_context
def add(ctx: click.Context, org: str, url: str, types: str | None) -> None:
    """Add an endpoint and print its signing secret (shown this once)."""
    chosen = [t.strip() for t in types.split(",") if t.strip()] if types else None
    settings = _settings(ctx)
    keyring = cli_keyring(settings)
    with _connection(ctx) as conn:
        endpoint_id, secret = endpoints.add_endpoint(
            conn, org, url, chosen, keyring=keyring, allow_private=settings.webhook_allow_private_addresses)
    click.echo(f"webhook endpoint {endpoint_id} added; its signing secret (shown once):", err=True)
    click.echo(secret)


@webhooks.command("list")
@click.option("--org", default=None, help="Only this organization's endpoints.")
@click.pass_context
def list_(ctx: click.Context, org: str | None) -> None:
    """The endpoints, their status and delivery state."""
    with _connection(ctx) as conn:
        rows = endpoints.list_endpoints(conn, org)
    for row in rows:
        types = ",".join(row["event_types"]) if row["event_types"] else "all"
        state = row["status"] if row["status"] == "active" else f"disabled ({row['disabled_reason']})"
        failing = f" failing since {row['failing_since']:%Y-%m-%d %H:%M:%S}" if row["failing_since"] else ""
        click.echo(f"{row['id']}\t{row['organization']}\t{row['url']}\t{types}\t{state}{failing}")


@webhooks.command("disable")
@click.argument("endpoint_id", type=int)
@click.option("--reason", default="disabled by an operator", show_default=True)
@click.pass_context
def disable(ctx: click.Context, endpoint_id: int, reason: str) -> None:
    """Stop delivering to ENDPOINT_ID."""
    with _connection(ctx) as conn:
        endpoints.disable_endpoint(conn, endpoint_id, reason)
    click.echo(f"webhook endpoint {endpoint_id} disabled")


@webhooks.command("redeliver")
@click.argument("endpoint_id", type=int)
@click.option("--since", required=True, type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]),
              help="Send again every kept event from this moment (UTC) on, in order.")
@click.pass_context
def redeliver(ctx: click.Context, endpoint_id: int, since: datetime) -> None:
    """Deliver ENDPOINT_ID's events since --since again (it is re-enabled)."""
    with _connection(ctx) as conn:
        queued = endpoints.redeliver(conn, endpoint_id, since.replace(tzinfo=UTC))
    click.echo(f"webhook endpoint {endpoint_id}: {queued} events queued")
