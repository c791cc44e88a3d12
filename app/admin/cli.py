"""``relay orgs|keys|accounts|credits``: the administration commands.

Each command opens one autocommit connection; the service functions are ``app.admin.service``'s.
Every listing prints a table, or JSON with ``--json`` (for scripts). Secrets (keys, upstream
credentials) are never listed.
"""

from __future__ import annotations

import sys

import click

from app.commands import admin_connection, emit, json_option, pass_settings
from app.setting_values import parse_duration
from app.settings import Settings


@click.group()
def orgs() -> None:
    """Organizations: the tenants that own keys, accounts, rate windows and credits."""


@orgs.command("create")
@click.argument("name")
@click.option("--limit-minute", type=int, default=None, help="Requests per minute (default RELAY_DEFAULT_LIMIT_MINUTE).")
@click.option("--limit-day", type=int, default=None, help="Requests per day (default RELAY_DEFAULT_LIMIT_DAY).")
@click.option("--credits", type=int, default=None, help="Initial credit balance (default RELAY_DEFAULT_CREDITS).")
@pass_settings
def orgs_create(settings: Settings, name: str, limit_minute: int | None, limit_day: int | None,
                credits: int | None) -> None:
    """Create organization NAME."""
    from app.admin.service import create_organization

    with admin_connection(settings) as conn:
        org_id = create_organization(
            conn, name, settings=settings, limit_minute=limit_minute, limit_day=limit_day, credits=credits
        )
    starting = settings.default_credits if credits is None else credits
    click.echo(f"organization {name!r} created (id {org_id}, {starting} credits)")


@click.group()
def keys() -> None:
    """API keys: created for an organization with a role; shown once."""


@keys.command("create")
@click.option("--org", required=True, help="Organization name or id.")
@click.option("--role", required=True, help="Role: admin, reader, analytics or messaging.")
@click.option("--name", default=None, help="A label for the key.")
@pass_settings
def keys_create(settings: Settings, org: str, role: str, name: str | None) -> None:
    """Create a key and print it. It is shown this once and stored only hashed."""
    from app.admin.service import create_key

    with admin_connection(settings) as conn:
        created = create_key(conn, org, role, name=name)
    click.echo(f"key {created.id} ({created.prefix}..., role {created.role}); store it now, it is not shown again:", err=True)
    click.echo(created.secret)


@keys.command("revoke")
@click.argument("key_id", type=int)
@pass_settings
def keys_revoke(settings: Settings, key_id: int) -> None:
    """Revoke key KEY_ID; it stops working at once."""
    from app.admin.service import revoke_key

    with admin_connection(settings) as conn:
        revoke_key(conn, key_id)
    click.echo(f"key {key_id} revoked")


@click.group()
def accounts() -> None:
    """Connected upstream accounts."""


def credential_options(fn):
    """``--token-stdin`` (the way: the credential stays off the command line, out of ``ps``
    and shell history), ``--token`` and ``--no-check``."""
    fn = click.option("--no-check", is_flag=True,
                      help="Store the credential without asking the upstream whether it accepts it.")(fn)
    fn = click.option("--token", default=None,
                      help="The credential as an argument (visible in ps and shell history: prefer --token-stdin).")(fn)
    return click.option("--token-stdin", is_flag=True,
                        help="Read the account's upstream credential from standard input (one line).")(fn)


def given_credential(token: str | None, token_stdin: bool) -> str | None:
    """The credential given by ``--token-stdin`` (its line end removed) or ``--token``; None
    when neither was given."""
    if token is not None and token_stdin:
        raise click.UsageError("give the credential with --token-stdin or --token, not both")
    if token_stdin:
        token = sys.stdin.read().rstrip("\r\n")
    if token is not None and not token.strip():
        raise click.UsageError("the credential is empty")
    return token


def check_credential(settings: Settings, account_id: int, token: str) -> None:
    """One upstream call: the command stops (exit 1, nothing stored) unless the upstream
    accepts the credential."""
    import asyncio

    from app.upstream.client import UpstreamAccount
    from app.upstream.credential_check import check_credential as ask_upstream
    from app.upstream.errors import UpstreamCredentialsRejected, UpstreamError, UpstreamNotFound

    try:
        asyncio.run(ask_upstream(settings, UpstreamAccount(account_id, token)))
    except UpstreamCredentialsRejected:
        raise click.ClickException(
            f"the upstream rejected the credential of account {account_id}; nothing was stored"
        ) from None
    except UpstreamNotFound:
        raise click.ClickException(f"the upstream knows no account {account_id}; nothing was stored") from None
    except UpstreamError as exc:
        raise click.ClickException(
            f"the credential of account {account_id} could not be checked ({exc.reason}); nothing was "
            "stored (--no-check stores it unchecked)"
        ) from None


@accounts.command("connect")
@click.option("--org", required=True, help="Organization name or id.")
@click.option("--account-id", type=int, required=True, help="The upstream numeric account id.")
@credential_options
@click.option("--label", default=None, help="A label for the account.")
@pass_settings
def accounts_connect(settings: Settings, org: str, account_id: int, token_stdin: bool, token: str | None,
                     no_check: bool, label: str | None) -> None:
    """Link an upstream account and its credential to an organization, once the upstream
    accepts the credential: `printf %s "$TOKEN" | relay accounts connect --org ORG
    --account-id ID --token-stdin`."""
    from app.admin.service import connect_account
    from app.commands import cli_keyring

    keyring = cli_keyring(settings)
    token = given_credential(token, token_stdin)
    if token is None:
        raise click.UsageError("the credential is missing: pipe it in with --token-stdin")
    if not no_check:
        check_credential(settings, account_id, token)
    with admin_connection(settings) as conn:
        connect_account(conn, org, account_id, token, keyring=keyring, label=label)
    click.echo(f"account {account_id} connected to {org!r}")


@click.group()
def credits() -> None:
    """Credit balances."""


@credits.command("add")
@click.option("--org", required=True, help="Organization name or id.")
@click.argument("amount", type=int)
@click.option("--note", default=None, help="Why (kept with the grant).")
@pass_settings
def credits_add(settings: Settings, org: str, amount: int, note: str | None) -> None:
    """Add AMOUNT credits to an organization's balance."""
    from app.admin.service import add_credits

    with admin_connection(settings) as conn:
        balance = add_credits(conn, org, amount, note=note)
    click.echo(f"{amount} credits added; balance {balance}")


# --- listings and lifecycle ---------------------------------------------------------------


@orgs.command("list")
@json_option
@pass_settings
def orgs_list(settings: Settings, as_json: bool) -> None:
    """Every organization: limits, balance, active keys, accounts."""
    from app.admin.service import list_organizations

    with admin_connection(settings) as conn:
        rows = list_organizations(conn)
    emit(rows, as_json, ["id", "name", "limit_minute", "limit_day", "credit_balance", "active_keys", "accounts"])


@orgs.command("show")
@click.argument("org")
@json_option
@pass_settings
def orgs_show(settings: Settings, org: str, as_json: bool) -> None:
    """One organization (name or id): limits, balance, today's usage, keys and accounts."""
    from app.admin.service import show_organization

    with admin_connection(settings) as conn:
        detail = show_organization(conn, org)
    emit(detail, as_json)
    if not as_json:
        click.echo("\nkeys:")
        emit(detail["keys"], False, KEY_COLUMNS)
        click.echo("\naccounts:")
        emit(detail["accounts"], False, ACCOUNT_COLUMNS)


KEY_COLUMNS = ["id", "organization", "role", "name", "prefix", "state", "expires_at", "last_used_at"]
ACCOUNT_COLUMNS = ["id", "organization", "label", "status", "coverage_end", "last_success_at", "resources_failing"]


@keys.command("list")
@click.option("--org", default=None, help="Only this organization's keys (name or id).")
@json_option
@pass_settings
def keys_list(settings: Settings, org: str | None, as_json: bool) -> None:
    """Keys (prefix, role, state; never the key itself)."""
    from app.admin.service import list_keys

    with admin_connection(settings) as conn:
        rows = list_keys(conn, org)
    emit(rows, as_json, KEY_COLUMNS)


@keys.command("rotate")
@click.argument("key_id", type=int)
@click.option("--overlap", default="24h", show_default=True,
              help="How long the old key keeps working (e.g. 0, 30m, 24h, 7d).")
@pass_settings
def keys_rotate(settings: Settings, key_id: int, overlap: str) -> None:
    """Replace KEY_ID by a new key (same organization, role and name) and print it; the old
    key keeps working for the overlap, then the gate refuses it."""
    from app.admin.service import rotate_key

    try:
        seconds = parse_duration(overlap)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--overlap") from exc
    with admin_connection(settings) as conn:
        created = rotate_key(conn, key_id, seconds)
    click.echo(f"key {created.id} ({created.prefix}...) replaces key {key_id}, which stops working "
               f"in {overlap}; store the new key now, it is not shown again:", err=True)
    click.echo(created.secret)


@accounts.command("list")
@click.option("--org", default=None, help="Only this organization's accounts (name or id).")
@json_option
@pass_settings
def accounts_list(settings: Settings, org: str | None, as_json: bool) -> None:
    """Connected accounts: status and sync coverage (never their credentials)."""
    from app.admin.service import list_accounts

    with admin_connection(settings) as conn:
        rows = list_accounts(conn, org)
    emit(rows, as_json, ACCOUNT_COLUMNS)


@accounts.command("disconnect")
@click.argument("account_id", type=int)
@pass_settings
def accounts_disconnect(settings: Settings, account_id: int) -> None:
    """Turn ACCOUNT_ID off: its sync stops and the API answers 409 for it; what is stored
    stays (reconnect turns it back on)."""
    from app.admin.service import disconnect_account

    with admin_connection(settings) as conn:
        disconnect_account(conn, account_id)
    click.echo(f"account {account_id} disconnected (sync paused, API routes answer 409)")


@accounts.command("reconnect")
@click.argument("account_id", type=int)
@credential_options
@pass_settings
def accounts_reconnect(settings: Settings, account_id: int, token_stdin: bool, token: str | None,
                       no_check: bool) -> None:
    """Turn ACCOUNT_ID back on, with a new upstream credential (--token-stdin: after the
    upstream rejected the old one) or the one it has (after a disconnect), once the upstream
    accepts it; its sync resumes at once."""
    from app.admin.service import account_credential, reconnect_account
    from app.commands import cli_keyring

    keyring = cli_keyring(settings)
    token = given_credential(token, token_stdin)
    if not no_check:
        with admin_connection(settings) as conn:
            checked = token if token is not None else account_credential(conn, account_id, keyring=keyring)
        check_credential(settings, account_id, checked)
    with admin_connection(settings) as conn:
        reconnect_account(conn, account_id, token, keyring=keyring)
    click.echo(f"account {account_id} reconnected")


@credits.command("show")
@click.option("--org", required=True, help="Organization name or id.")
@json_option
@pass_settings
def credits_show(settings: Settings, org: str, as_json: bool) -> None:
    """An organization's balance, credits granted and credits debited."""
    from app.admin.service import credits_summary

    with admin_connection(settings) as conn:
        summary = credits_summary(conn, org)
    emit(summary, as_json)


ADMIN_GROUPS = [orgs, keys, accounts, credits]
