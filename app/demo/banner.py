"""What ``relay demo`` tells its user: a line while it starts, then the banner, framed and last.

Readable text on stdout (colours on a terminal) when the logs are readable lines; with JSON
logs (``RELAY_LOG_JSON=true``, or stderr not a terminal) one ``demo_ready`` log line with the
same facts instead, so every line the stack writes parses as JSON.
"""

from __future__ import annotations

import logging
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from app.settings import Settings

logger = logging.getLogger("app.demo.run")


@dataclass(frozen=True)
class DemoAccess:
    api_key: str
    account_ids: tuple[int, ...]


def database_text(settings: Settings) -> str:
    if settings.database_url:
        return "configured (RELAY_DATABASE_URL)"
    return f"embedded PostgreSQL under {settings.data_dir}, stopped with the demo"


def relay_command() -> str:
    """How this shell calls ``relay``: plain when it is on PATH, else the virtual
    environment's script (relative to here when it is below)."""
    bin_dir = Path(sys.executable).parent
    on_path = shutil.which("relay")
    if on_path and Path(on_path).resolve() == (bin_dir / "relay").resolve():
        return "relay"
    script = bin_dir / "relay"
    try:
        return str(script.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(script)


def _relay_hints(command: str) -> list[str]:
    if command == "relay":
        return ["relay sync status      relay orgs list      relay --help"]
    activate = Path(command).parent / "activate"
    return [f". {activate}      then: relay sync status, relay orgs list, relay --help",
            f"or, without activating it:  {command} sync status"]


def _examples(base: str, access: DemoAccess) -> list[str]:
    """Requests to paste into a shell, the key in a variable so each line stays short."""
    account = access.account_ids[0]
    auth = '-H "Authorization: Bearer $KEY"'
    return [
        f"export KEY={access.api_key}",
        f"curl {base}/health",
        f"curl {auth} '{base}/v1/{account}/earnings'",
        f"curl {auth} '{base}/v1/{account}/earnings/chart?by=tips'",
        f"curl {auth} '{base}/v1/{account}/posts?limit=5&order=favorites_count_desc'",
        f"curl {auth} '{base}/v1/{account}/chats?limit=3'",
        f"curl {auth} '{base}/v1/gifs/trending?limit=2'",
    ]


def banner_lines(settings: Settings, access: DemoAccess, relay: str) -> list[str]:
    """The banner's lines (rich markup), between its two rules."""
    base = f"http://{settings.api_host}:{settings.api_port}"
    sandbox = f"http://{settings.sandbox_host}:{settings.sandbox_port}"
    accounts = ", ".join(map(str, access.account_ids))
    return [
        f"  [bold]API:[/]       {base}   (docs {base}/docs, status page {base}/status)",
        f"  [bold]API key:[/]   [bold green]{access.api_key}[/]   (admin; a new key each run)",
        f"  [bold]Accounts:[/]  {accounts}   (sandbox data; the worker syncs them within a minute)",
        f"  [bold]Sandbox:[/]   {sandbox}   (its clock: POST {sandbox}/_sandbox/clock/advance)",
        f"  [bold]Database:[/]  {database_text(settings)}",
        "",
        "  [bold]Try[/] (in another terminal):",
        *(f"    {escape(line)}" for line in _examples(base, access)),
        "",
        "  [bold]The relay command[/] (another terminal, this directory):",
        *(f"    {hint}" for hint in _relay_hints(relay)),
        "",
        "  Logs: warnings and errors only (RELAY_LOG_LEVEL=INFO make run: every line).",
        "  [bold]Stop: Ctrl-C[/] (stops the API, the worker, the sandbox and the embedded database)",
    ]


def _console() -> Console:
    # soft_wrap: a long example line stays one line (copied whole), never folded by rich.
    return Console(highlight=False, soft_wrap=True)


def announce_start(settings: Settings, json_logs: bool) -> None:
    if not json_logs:
        _console().print(f"Starting the Creator Relay demo; database: {database_text(settings)} ...")


def announce(settings: Settings, access: DemoAccess, json_logs: bool) -> None:
    """The banner, or with JSON logs the ``demo_ready`` line."""
    if json_logs:
        base = f"http://{settings.api_host}:{settings.api_port}"
        logger.info("demo_ready", extra={
            "api": base,
            "docs": f"{base}/docs",
            "status_page": f"{base}/status",
            "sandbox": f"http://{settings.sandbox_host}:{settings.sandbox_port}",
            "database": database_text(settings),
            "accounts": list(access.account_ids),
            "api_key": access.api_key,
            "try": f"curl -H 'Authorization: Bearer {access.api_key}' '{base}/v1/{access.account_ids[0]}/earnings'",
            "relay_command": relay_command(),
            "readable_banner": "RELAY_LOG_JSON=false make run",
        })
        return
    console = _console()
    console.print()
    console.rule("[bold]Creator Relay demo is running[/]")
    for line in banner_lines(settings, access, relay_command()):
        console.print(line)
    console.rule()
