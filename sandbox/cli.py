"""``relay sandbox``: serve the sandbox upstream (plugged into ``relay`` by entry point)."""

from __future__ import annotations

from dataclasses import replace

import click

from sandbox.config import SandboxConfig
from sandbox.core.timefmt import parse_time


def _time(raw: str | None) -> int | None:
    if raw is None:
        return None
    return int(raw) if raw.isdigit() else parse_time(raw)


@click.command()
@click.option("--host", default=None, help="Bind address (default RELAY_SANDBOX_HOST).")
@click.option("--port", type=int, default=None, help="Port (default RELAY_SANDBOX_PORT).")
@click.option("--seed", type=int, default=None, help="Data seed (default RELAY_SANDBOX_SEED).")
@click.option("--epoch", default=None, help="Sizing epoch, unix seconds or ISO (default: today 00:00 UTC).")
@click.option("--earnings", type=int, default=None, help="Default earnings rows per account.")
@click.option("--history-days", type=float, default=None, help="Default history length (days).")
@click.option("--rps", type=float, default=None, help="Per-account rate limit (0 = off).")
@click.option("--clock", default=None, help="Start the clock at this time (default: real time).")
@click.option("--frozen", is_flag=True, help="Freeze the clock.")
@click.pass_context
def sandbox(ctx, host, port, seed, epoch, earnings, history_days, rps, clock, frozen) -> None:
    """Run the sandbox upstream creator platform."""
    from app.settings import Settings
    from sandbox.server import serve

    settings = ctx.obj if isinstance(ctx.obj, Settings) else Settings.from_env()
    from app.logging import configure_logging

    configure_logging(settings, "sandbox")
    config = SandboxConfig.from_settings(settings)
    overrides = {
        "host": host, "port": port, "seed": seed, "epoch": _time(epoch),
        "default_earnings": earnings, "default_history_days": history_days,
        "rate_limit_rps": rps, "clock_start": _time(clock),
    }
    config = replace(config, **{k: v for k, v in overrides.items() if v is not None})
    if frozen:
        config = replace(config, clock_frozen=True)
    serve(config)
