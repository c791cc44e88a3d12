"""``relay schedules add|list|pause|resume|remove``: backfills, reconciles and exports that
the workers run on a cron (docs/sync.md, "Schedules").

A refused option is one line naming the option and the rule, exit status 1.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from app.commands import admin_connection, emit, json_option
from app.exports.columns import RESOURCES as EXPORTABLE
from sync.resources import REGISTRY
from sync.schedules import store
from sync.schedules.store import NewSchedule
from sync.schedules.timing import ScheduleError, next_due, parse_since, zone
from sync.status_view import last_run_text, target_text

ACTIONS = ("backfill", "reconcile", "export")
FORMATS = ("parquet", "csv")


def _settings(ctx: click.Context):
    from sync.cli import _settings as sync_settings

    return sync_settings(ctx)


def _now(settings) -> datetime:
    """The sync's clock (RELAY_SYNC_CLOCK), which due times are measured on."""
    from sync.cli import _upstream_now

    return datetime.fromtimestamp(asyncio.run(_upstream_now(settings)), UTC)


def _one_of(option: str, value: str, allowed) -> str:
    if value not in allowed:
        raise click.ClickException(f"{option} {value!r} must be one of: {', '.join(allowed)}")
    return value


def _either(option: str, value, all_flag: bool, all_name: str):
    if (value is None) == (not all_flag):
        raise click.ClickException(f"give exactly one of {option} and {all_name}")
    return value


def validated(org_id: int, account, all_accounts, resource, all_resources, action, cron, since,
              fmt, to, tz) -> NewSchedule:
    """The schedule the options describe, or a ClickException naming the first problem."""
    _one_of("--action", action, ACTIONS)
    _either("--account", account, all_accounts, "--all-accounts")
    _either("--resource", resource, all_resources, "--all-resources")
    if resource is not None:
        _one_of("--resource", resource, EXPORTABLE if action == "export" else REGISTRY)
    if action == "export":
        if fmt is None or to is None:
            raise click.ClickException("--action export needs --format (parquet or csv) and --to DIR")
        _one_of("--format", fmt, FORMATS)
        if Path(to).exists() and not Path(to).is_dir():
            raise click.ClickException(f"--to {to!r} is not a directory")
    elif fmt is not None or to is not None:
        raise click.ClickException("--format and --to are only for --action export")
    try:
        zone(tz)
        parse_since(since)
        next_due(cron, tz, datetime.now(UTC))
    except ScheduleError as exc:
        raise click.ClickException(str(exc)) from None
    return NewSchedule(
        organization_id=org_id, account_id=account, resource=resource, action=action, cron=cron,
        timezone=tz, since=since, export_format=fmt,
        # The workers may run elsewhere than this shell: never a relative directory.
        export_dir=None if to is None else str(Path(to).expanduser().absolute()),
    )


@click.group()
def schedules() -> None:
    """Backfills, reconciles and exports the workers run on a cron."""


@schedules.command()
@click.option("--org", required=True, help="Organization name or id.")
@click.option("--account", type=int, default=None, help="One account of the organization.")
@click.option("--all-accounts", is_flag=True, help="Every active account of the organization (at each run).")
@click.option("--resource", default=None, help=f"One resource (export: {', '.join(EXPORTABLE)}).")
@click.option("--all-resources", is_flag=True, help="Every resource (export: every exportable one).")
@click.option("--action", required=True, help="backfill, reconcile or export.")
@click.option("--cron", required=True, help='Five fields, e.g. "0 3 * * mon" (days of the week by name).')
@click.option("--since", default=None,
              help="Window start: a duration back from each due time (7d, 12h) or a date (YYYY-MM-DD). "
                   "Default: backfill the whole history, reconcile the whole coverage, export since the last run.")
@click.option("--format", "fmt", default=None, help="Export: parquet or csv.")
@click.option("--to", default=None, help="Export: the directory the files go to.")
@click.option("--tz", default="UTC", show_default=True, help="Time zone the cron is read in.")
@click.pass_context
def add(ctx, org, account, all_accounts, resource, all_resources, action, cron, since, fmt, to, tz) -> None:
    """Add a schedule; prints its id."""
    from app.admin.service import organization_id

    settings = _settings(ctx)
    with admin_connection(settings) as conn:
        org_id = organization_id(conn, org)
        new = validated(org_id, account, all_accounts, resource, all_resources, action, cron, since, fmt, to, tz)
        if account is not None and not store.account_of_org(conn, account, org_id):
            raise click.ClickException(f"--account {account} is not an account of organization {org!r}")
        schedule_id = store.add(conn, new, _now(settings))
    click.echo(schedule_id)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def listing(row: dict[str, Any]) -> dict[str, Any]:
    """One schedule as ``relay schedules list --json`` shows it."""
    last = None
    if row["run_id"] is not None:
        last = {
            "due_at": _iso(row["run_due_at"]), "attempt": row["run_attempt"], "status": row["run_status"],
            "started_at": _iso(row["run_started_at"]), "finished_at": _iso(row["run_finished_at"]),
            "rows_read": row["run_rows_read"], "rows_changed": row["run_rows_changed"],
            "error": row["run_error"], "details": row["run_details"],
        }
    return {
        "id": row["id"], "organization": row["organization"], "account_id": row["account_id"],
        "resource": row["resource"], "action": row["action"], "cron": row["cron"],
        "timezone": row["timezone"], "since": row["since"], "format": row["export_format"],
        "to": row["export_dir"], "paused": row["paused"], "next_run_at": _iso(row["next_run_at"]),
        # While a run holds the lease, retry_at is only its takeover time: not shown.
        "retry_at": _iso(row["retry_at"]) if row["pending_due_at"] and not row["lease_owner"] else None,
        "failures": row["failures"], "running_on": row["lease_owner"], "last_run": last,
    }


@schedules.command("list")
@json_option
@click.pass_context
def list_(ctx, as_json: bool) -> None:
    """Every schedule with its last run and next run."""
    with admin_connection(_settings(ctx)) as conn:
        items = [listing(row) for row in store.list_rows(conn)]
    if as_json:
        emit(items, True)
        return
    emit([{
        "id": i["id"], "org": i["organization"], "target": target_text(i), "action": i["action"],
        "cron": i["cron"] + ("" if i["timezone"] == "UTC" else f" {i['timezone']}"),
        "next run": "paused" if i["paused"] else i["next_run_at"][:16].replace("T", " "),
        "last run": last_run_text(i),
    } for i in items], False)


def _state_command(name: str, paused: bool, summary: str) -> click.Command:
    @schedules.command(name=name, help=summary)
    @click.argument("schedule_id", type=int)
    @click.pass_context
    def command(ctx, schedule_id: int) -> None:
        settings = _settings(ctx)
        with admin_connection(settings) as conn:
            if not store.set_paused(conn, schedule_id, paused, _now(settings)):
                raise click.ClickException(f"no schedule {schedule_id}")
        click.echo(f"schedule {schedule_id} {name}d")

    return command


pause = _state_command("pause", True, "Stop running a schedule (it keeps its history).")
resume = _state_command("resume", False, "Run a paused schedule again, from its next due time after now.")


@schedules.command()
@click.argument("schedule_id", type=int)
@click.pass_context
def remove(ctx, schedule_id: int) -> None:
    """Delete a schedule and its runs' history."""
    with admin_connection(_settings(ctx)) as conn:
        if not store.remove(conn, schedule_id):
            raise click.ClickException(f"no schedule {schedule_id}")
    click.echo(f"schedule {schedule_id} removed")
