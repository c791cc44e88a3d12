"""``relay webhooks add|list|disable|redeliver|test`` (plugged into ``relay`` by an entry point)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import click

from app.cli import load_settings
from app.commands import admin_connection, cli_keyring, emit, json_option
from app.events.webhooks import endpoints
from app.settings import Settings

LIST_COLUMNS = ["id", "organization", "url", "events", "status", "failing_since", "last_delivered_at"]


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
@json_option
@click.pass_context
def list_(ctx: click.Context, org: str | None, as_json: bool) -> None:
    """The endpoints, their status and delivery state.

    With --json: every field as stored (event_types null: all)."""
    with _connection(ctx) as conn:
        rows = endpoints.list_endpoints(conn, org)
    emit(rows if as_json else [_listed(row) for row in rows], as_json, LIST_COLUMNS)


def _listed(row: dict[str, Any]) -> dict[str, Any]:
    """An endpoint as a table row: its event types or "all", why it is disabled."""
    return {
        **row,
        "events": ",".join(row["event_types"]) if row["event_types"] else "all",
        "status": row["status"] if row["status"] == "active" else f"disabled ({row['disabled_reason']})",
    }


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


@webhooks.command("test")
@click.argument("endpoint_id", type=int)
@click.pass_context
def send_test_event(ctx: click.Context, endpoint_id: int) -> None:
    """Send ENDPOINT_ID a signed webhook.test event now, as the dispatcher sends events; the
    attempt goes in its delivery log. Exit 1 when it is not delivered (the reason is printed)."""
    from app.events.webhooks.dispatcher import send_test

    settings = _settings(ctx)
    with _connection(ctx) as conn:
        endpoint = endpoints.endpoint_to_test(conn, endpoint_id)
        item, outcome = asyncio.run(send_test(settings, endpoint))
        endpoints.log_test(conn, endpoint_id, outcome)
    sent = f"webhook endpoint {endpoint_id}: webhook.test {item['id']} to {endpoint['url']}"
    if not outcome["delivered"]:
        reason = outcome["error"] or f"the receiver answered HTTP {outcome['status']} (2xx expected)"
        raise click.ClickException(f"{sent} not delivered: {reason}")
    click.echo(f"{sent} delivered: HTTP {outcome['status']} in {outcome['ms']} ms")
    if endpoint["status"] != "active":
        click.echo(f"(the endpoint is {endpoint['status']}: `relay webhooks redeliver` activates it again)", err=True)
