"""Where a store page's CPU goes: the same page through each layer, in-process (by hand).

    python -m bench.cost [--rows 50000] [--clients 32] [--seconds 4] [--rounds 3]
    BENCH_COST_PROFILE=DIR python -m bench.cost ...   # also cProfile each variant into DIR

``make bench`` compares req/s over HTTP, which on a small machine shared with other work
swings by tens of percent from run to run. This bench asks the narrower, steadier question
of issue 10: how much CPU does one store-served earnings page cost the API process, and
which layer spends it. Each variant runs in a process of its own that drives the ASGI app
directly (no HTTP server, no wrk: ``--clients`` concurrent callers in the process's own
event loop, random markers over the account's history, every answer checked for 200) and
reports its CPU time per request. The variants, each one layer less than the one before:

- ``store``: ``GET /v1/{id}/earnings`` of the app, everything included;
- ``gated``: the minimal app's keyset query behind the gate in the same app
  (``bench/gate_app.py``): the store route's own machinery left out;
- ``open``: the same query in the same app without the gate: the app's middleware only;
- ``minimal``: ``bench/minimal_app.py`` alone.

The differences between neighbours are what each layer costs. Rounds alternate the variants
so drifting machine load hits them alike; the table gives the median and spread of each.
It needs a serving data set and builds one as ``make bench`` does (a scratch database on
``BENCH_DATABASE_URL`` / ``TEST_DATABASE_URL`` or an embedded PostgreSQL, the sandbox, one
account synced by ``relay sync backfill``), and stops everything it started.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("store", "gated", "open", "minimal")
#: What the difference between a variant and the next one down is.
LAYERS = {
    "store": "the store route's machinery (parameters, coverage, batched page read, envelope, next page)",
    "gated": "the gate (admission, headers, _meta, ledger row; its statements and writes in the background)",
    "open": "the app's middleware (request id, metrics, errors)",
}


# --- one variant, in its own process ----------------------------------------------------


def _target(variant: str, account: int, key: str) -> tuple[Any, str, str | None]:
    """(ASGI app, path, API key) of a variant."""
    if variant == "store":
        from app.asgi import create_app

        return create_app(), f"/v1/{account}/earnings", key
    if variant == "minimal":
        from bench.minimal_app import app

        return app, f"/earnings/{account}", None
    from bench.gate_app import create_bench_app

    if variant == "open":
        return create_bench_app(), f"/open/{account}/bench/earnings", None
    return create_bench_app(), f"/v1/{account}/bench/earnings", key


async def _drive(variant: str, account: int, key: str, markers: tuple[int, int], clients: int, seconds: float) -> dict:
    app, path, bearer = _target(variant, account, key)
    headers = [(b"host", b"127.0.0.1"), (b"accept", b"*/*")]
    if bearer:
        headers.append((b"authorization", f"Bearer {bearer}".encode()))

    async def one() -> None:
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
            "query_string": f"marker={random.randint(*markers)}".encode(), "headers": headers,
            "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8000), "state": {},
        }
        statuses: list[int] = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        await app(scope, receive, send)
        if statuses != [200]:
            raise RuntimeError(f"{variant}: {path} answered {statuses}")

    inbox: asyncio.Queue = asyncio.Queue()
    events: list[dict] = []
    ready = asyncio.Event()

    async def lifespan_send(message: dict) -> None:
        events.append(message)
        ready.set()

    await inbox.put({"type": "lifespan.startup"})
    lifespan = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                                       inbox.get, lifespan_send))
    await ready.wait()
    if events[-1]["type"] != "lifespan.startup.complete":
        raise RuntimeError(f"{variant}: startup failed: {events[-1]}")
    done = 0
    stop = False

    async def caller() -> None:
        nonlocal done
        while not stop:
            await one()
            done += 1

    callers = [asyncio.create_task(caller()) for _ in range(clients)]
    await asyncio.sleep(1.0)  # warm-up: pool filled, statements prepared
    profile_dir = os.environ.get("BENCH_COST_PROFILE")  # by hand: where each variant's pstats go
    profiler = cProfile.Profile() if profile_dir else None
    first, cpu0, wall0 = done, time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    await asyncio.sleep(seconds)
    if profiler and profile_dir:
        profiler.disable()
        profiler.dump_stats(Path(profile_dir) / f"{variant}.pstats")
    served, cpu, wall = done - first, time.process_time() - cpu0, time.perf_counter() - wall0
    stop = True
    await asyncio.gather(*callers)
    # The share of requests the gate admitted with no database work of their own.
    gate = getattr(getattr(app.state, "gate", None), "gatekeeper", None)
    local = None
    if gate is not None and gate.admitted_locally + gate.admitted_by_statement:
        local = gate.admitted_locally / (gate.admitted_locally + gate.admitted_by_statement)
    await inbox.put({"type": "lifespan.shutdown"})
    await lifespan
    return {"variant": variant, "requests": served, "rps": served / wall, "cpu_us": cpu / served * 1e6,
            "local": local}


def run_variant(args: argparse.Namespace) -> None:
    import uvloop

    result = uvloop.run(_drive(args.variant, args.account, args.key, (args.lo, args.hi), args.clients, args.seconds))
    print(json.dumps(result))


# --- the whole run --------------------------------------------------------------------------


def measure(stack: Any, data: Any, args: argparse.Namespace) -> dict[str, list[dict]]:
    env = {**stack.env(), "BENCH_MINIMAL_DATABASE_URL": stack.database_url, "PYTHONPATH": str(ROOT)}
    account, key, markers = data.account, data.key, data.markers
    results: dict[str, list[dict]] = {v: [] for v in VARIANTS}
    for round_ in range(args.rounds):
        data.refresh(stack)  # the store answers only while its coverage is recent
        for variant in VARIANTS:
            argv = [sys.executable, "-m", "bench.cost", "--variant", variant, "--account", str(account),
                    "--key", key, "--lo", str(markers[0]), "--hi", str(markers[1]),
                    "--clients", str(args.clients), "--seconds", str(args.seconds)]
            done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120 + args.seconds)
            if done.returncode != 0:
                raise RuntimeError(f"{variant} failed: {done.stderr.strip()[-800:]}")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            results[variant].append(result)
            print(f"  round {round_ + 1}: {variant:13s} {result['cpu_us']:6.0f} µs/request, "
                  f"{result['rps']:6.0f} req/s", flush=True)
    return results


def table(results: dict[str, list[dict]]) -> str:
    median = {v: statistics.median(r["cpu_us"] for r in rs) for v, rs in results.items()}
    lines = ["| variant | CPU per request, median (spread) | req/s, median | admitted without a statement | "
             "next layer down costs |", "|---|---|---|---|---|"]
    for i, variant in enumerate(VARIANTS):
        rounds = results[variant]
        spread = f"{min(r['cpu_us'] for r in rounds):.0f}–{max(r['cpu_us'] for r in rounds):.0f}"
        shares = [r["local"] for r in rounds if r["local"] is not None]
        local = f"{statistics.median(shares):.1%}" if shares else ""
        layer = ""
        if variant in LAYERS:
            below = VARIANTS[i + 1]
            layer = f"{median[variant] - median[below]:.0f} µs: {LAYERS[variant]}"
        lines.append(f"| {variant} | {median[variant]:.0f} µs ({spread}) | "
                     f"{statistics.median(r['rps'] for r in rounds):.0f} | {local} | {layer} |")
    lines.append(f"\nminimal / store, CPU per request: {median['minimal'] / median['store']:.2f} (issue 10's "
                 f"req/s ratio where the API process is the bottleneck); the gate's share of the gated route: "
                 f"{1 - median['open'] / median['gated']:.0%}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000, help="earnings rows of the serving account")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)  # a child process
    parser.add_argument("--account", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    parser.add_argument("--lo", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--hi", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        run_variant(args)
        return

    sys.path.insert(0, str(ROOT))
    from bench import dataset, facts
    from bench.common import bench_database, bench_server
    from bench.config import BenchConfig
    from bench.procs import Processes
    from bench.stack import Stack, start_sandbox

    config = BenchConfig(quick=True, cases=("a",), rounds=1, seconds=1, earnings_rows=args.rows,
                         deep_page=max(args.rows // 100, 10), backfill_rows=0)
    logs = Path(tempfile.mkdtemp(prefix="relay-bench-cost-"))
    with bench_server() as server, Processes(logs) as services:
        sandbox = start_sandbox(services)
        with bench_database(server) as url:
            stack = Stack(services, url, sandbox, logs)
            print(f"bench.cost: syncing {args.rows:,} earnings rows; logs in {logs}", flush=True)
            data = dataset.build(stack, config)
            load_before = facts.load()
            results = measure(stack, data, args)
            print(f"\n## Per-request CPU by layer ({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC)\n")
            print(f"- machine: {facts.machine()}; versions: {facts.versions(url)}")
            print(f"- code: {facts.commit()}; {args.rows:,} earnings rows; {args.clients} concurrent callers; "
                  f"{args.rounds} rounds of {args.seconds:g} s per variant")
            print(f"- load average (1 / 5 / 15 min): {load_before} before, {facts.load()} after\n")
            print(table(results))


if __name__ == "__main__":
    main()
