"""``python -m sandbox [options]``: serve the sandbox upstream.

Host, port and seed come from the RELAY_SANDBOX_* settings; the options below override
them and set the sandbox-only defaults (see sandbox.config.SandboxConfig).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from app.settings import Settings
from sandbox.config import FaultRates, SandboxConfig
from sandbox.core.timefmt import parse_time
from sandbox.server import serve


def _time(raw: str) -> int:
    return int(raw) if raw.isdigit() else parse_time(raw)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--epoch", type=_time, help="sizing epoch (unix seconds or ISO)")
    parser.add_argument("--earnings", type=int, help="default earnings rows per account")
    parser.add_argument("--history-days", type=float)
    parser.add_argument("--rps", type=float, help="per-account rate limit; 0 = off")
    parser.add_argument("--clock", type=_time, help="start the clock at this time")
    parser.add_argument("--frozen", action="store_true", help="freeze the clock")
    for name in ("latency_ms", "error_rate", "rate_limit_rate", "timeout_rate", "truncate_rate"):
        parser.add_argument("--" + name.replace("_", "-"), type=float)
    args = parser.parse_args(argv)

    config = SandboxConfig.from_settings(Settings.from_env())
    overrides = {
        "host": args.host, "port": args.port, "seed": args.seed, "epoch": args.epoch,
        "default_earnings": args.earnings, "default_history_days": args.history_days,
        "rate_limit_rps": args.rps, "clock_start": args.clock,
    }
    config = replace(config, **{k: v for k, v in overrides.items() if v is not None})
    if args.frozen:
        config = replace(config, clock_frozen=True)
    rates = {
        name: (int(value) if name == "latency_ms" else value)
        for name in ("latency_ms", "error_rate", "rate_limit_rate", "timeout_rate", "truncate_rate")
        if (value := getattr(args, name)) is not None
    }
    if rates:
        config = replace(config, faults=replace(FaultRates(), **rates))
    serve(config)


if __name__ == "__main__":
    main()
