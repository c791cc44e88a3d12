"""Sync at scale (by hand, bounded): many small accounts, several worker processes.

    python -m bench.sync_scale [--accounts 1000] [--workers 1,2,4] [--steady-seconds 600]
                               [--hot 100] [--follow 20] [--sample 20] [--no-rebackfill]
                               [--upstream-rps 0] [--logs DIR]

What it does, on a scratch database (``BENCH_DATABASE_URL`` / ``TEST_DATABASE_URL`` or an
embedded PostgreSQL of its own: leave both unset so the server's CPU is the bench's alone)
and a sandbox subprocess whose clock follows real time, sized from the bench's start:

1. sizes ``--accounts`` sandbox accounts "realistically small" (earnings 200..3000 rows over
   90..365 days, 2..8 tracking links, drawn from a fixed seed); the first ``--hot`` of them
   gain a transaction every 4 s (900 rows over the last hour, going on at that rate); all
   are connected to one organization, and ``relay serve`` runs in front;
2. for each worker count, in the order given: empties the synced tables and the task table
   and times ``relay worker`` processes (default settings: every new account starts with a
   whole-history backfill) until every account's every resource has completed its first
   pass and its backfill (``--no-rebackfill``: only the first worker count does; the
   others start on its store);
3. then, with those workers, ``--steady-seconds`` of steady state, a round every 10 s:
   freshness (``bench.scale_probe.Freshness``) of the first ``--follow`` hot accounts every
   round and of ``--sample`` other accounts drawn at random; upstream requests per second
   by resource and the 429s (the sandbox's counters, less the bench's own reads), per
   non-hot ("idle") account and hour; CPU of the PostgreSQL server and of the bench
   database's backends; the longest time any (account, resource) went without a completed
   pass; load average; EXPLAIN ANALYZE of the task-claim query half-way;
4. at the end, EXPLAIN ANALYZE of the claim over a task table padded to ``--claim-tasks``.

Every phase is bounded (``--backfill-limit``, the steady seconds, HTTP timeouts). Every
process runs in a group of its own and is stopped on exit, on an error, on Ctrl-C or on
SIGTERM. Each worker count's section is printed as soon as it is measured, and the raw
figures go to ``DIR/results.json``.

Results: docs/benchmarks-history.md ("Sync at scale").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.admin import service as admin  # noqa: E402
from app.crypto.keyring import Keyring  # noqa: E402
from app.crypto.keys import generate_key  # noqa: E402
from app.db.rows import one  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.common import bench_database, bench_server  # noqa: E402
from bench.facts import commit, load, machine, versions  # noqa: E402
from bench.procs import Processes, free_port  # noqa: E402
from bench.scale_probe import Freshness, PassGaps, ServerCpu, percentile  # noqa: E402
from sync.resources import REGISTRY, interval_of  # noqa: E402

FIRST_ACCOUNT = 2_000_001
SYNCED_TABLES = ("earnings", "chargebacks", "payout_requests", "posts", "tracking_links",
                 "tracking_link_daily_stats", "earnings_daily", "sync_runs", "sync_state", "sync_tasks")
#: A hot account: 900 transactions over the hour before the bench started, and one every
#: 4 s after (the sandbox's timelines go on at their rate).
HOT_PROFILE = {"earnings": 900, "history_days": 1 / 24, "tracking_links": 4}
ROUND_SECONDS = 10.0


# --- processes ---------------------------------------------------------------------------


def relay(*args: str) -> list[str]:
    """``relay ARGS`` from the code next to this file (the bench may run from a copy)."""
    return [sys.executable, "-m", "app.cli", *args]


#: RELAY_SECRET_KEYS of every process of the run (a configured database needs keys).
SECRET_KEYS = generate_key()
KEYRING = Keyring([SECRET_KEYS])


def common_env(database_url: str, sandbox_url: str, settings: list[str]) -> dict[str, str]:
    """Default settings: the caller's RELAY_* variables are left out; ``settings`` are
    ``name=value`` overrides (``--setting``, for trial runs: the report says so)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    overrides = {f"RELAY_{name.upper()}": value for name, _, value in (s.partition("=") for s in settings)}
    return {**env, "RELAY_DATABASE_URL": database_url, "RELAY_UPSTREAM_URL": sandbox_url,
            "RELAY_SECRET_KEYS": SECRET_KEYS, "RELAY_LOG_JSON": "true", "RELAY_LOG_LEVEL": "WARNING",
            **overrides}


def start_workers(procs: Processes, env: dict, workers: int) -> list:
    return [procs.start(f"worker-{workers}-{n}", relay("worker"),
                        {**env, "RELAY_WORKER_ID": f"bench-{workers}-{n}"})
            for n in range(workers)]


# --- set-up ------------------------------------------------------------------------------


def account_sizes(count: int, hot: int) -> dict[int, dict]:
    """Deterministic, small, varied sizes; the first ``hot`` accounts are busy."""
    draw = random.Random(15)
    sizes = {}
    for k in range(count):
        account_id = FIRST_ACCOUNT + k
        if k < hot:
            sizes[account_id] = dict(HOT_PROFILE)
        else:
            sizes[account_id] = {
                "earnings": int(200 * 15 ** draw.random()),  # 200..3000, log-uniform
                "history_days": draw.randint(90, 365),
                "tracking_links": draw.randint(2, 8),
            }
    return sizes


def set_up(db: psycopg.Connection, sandbox: httpx.Client, sizes: dict[int, dict]) -> tuple[int, str]:
    """Size the sandbox accounts, connect them to one organization; (organization, API key)."""
    for account_id, profile in sizes.items():
        sandbox.put(f"/_sandbox/accounts/{account_id}", json=profile).raise_for_status()
    org = admin.create_organization(db, "scale-bench", credits=10**9,
                                    limit_minute=10**7, limit_day=10**9)
    for account_id in sizes:
        admin.connect_account(db, org, account_id, f"sandbox-{account_id}", keyring=KEYRING)
    return org, admin.create_key(db, org, "admin").secret


def empty_sync_tables(db: psycopg.Connection) -> None:
    db.execute(f"TRUNCATE {', '.join(SYNCED_TABLES)} CASCADE")


# --- measurements ------------------------------------------------------------------------


def backfill_left(db: psycopg.Connection, expected: int) -> int:
    """Tasks whose first pass or initial backfill has not completed."""
    (done,) = one(db.execute(
        """
        SELECT count(*) FROM sync_tasks t JOIN sync_state s USING (account_id, resource)
        WHERE t.backfill_since IS NULL AND s.last_success_at IS NOT NULL
        """
    ).fetchone())
    return expected - done


def pad_tasks(db: psycopg.Connection, organization: int, wanted: int) -> int:
    """Add idle accounts (tasks not due, spread over the next interval) until the task table
    holds ``wanted`` rows, so the claim is measured at the size asked; returns the count."""
    (have,) = one(db.execute("SELECT count(*) FROM sync_tasks").fetchone())
    (last,) = one(db.execute("SELECT max(id) FROM accounts").fetchone())
    extra = max(0, -(-(wanted - have) // len(REGISTRY)))
    db.execute(
        """
        INSERT INTO accounts (id, organization_id, upstream_token)
        SELECT %(last)s + g, %(org)s, t.token FROM unnest(%(tokens)s::text[]) WITH ORDINALITY AS t(token, g)
        """,
        {"last": last, "org": organization,
         "tokens": [KEYRING.encrypt(f"sandbox-{last + g}") for g in range(1, extra + 1)]},
    )
    db.execute(
        """
        INSERT INTO sync_tasks (account_id, resource, due_at, next_incremental_at)
        SELECT a, r, now() + random() * interval '5 minutes', now() + interval '5 minutes'
        FROM generate_series(%(last)s + 1, %(last)s + %(n)s) a, unnest(%(resources)s::text[]) r
        """,
        {"last": last, "n": extra, "resources": list(REGISTRY)},
    )
    db.execute("ANALYZE accounts, sync_tasks")  # as autovacuum would after such a change
    (have,) = one(db.execute("SELECT count(*) FROM sync_tasks").fetchone())
    return have


def runs_per_hour(db: psycopg.Connection, seconds: float) -> dict[str, dict[str, float]]:
    """Per resource and kind: runs started in the last ``seconds``, per account and hour."""
    rows = db.execute(
        """
        SELECT resource, kind, count(*)::float / greatest(1, count(DISTINCT account_id))
        FROM sync_runs WHERE started_at > now() - make_interval(secs => %s)
        GROUP BY resource, kind ORDER BY resource, kind
        """,
        (seconds,),
    ).fetchall()
    result: dict[str, dict[str, float]] = {}
    for resource, kind, per_account in rows:
        result.setdefault(resource, {})[kind] = round(per_account * 3600 / seconds, 1)
    return result


def explain_claim(db: psycopg.Connection) -> str:
    """EXPLAIN ANALYZE of one claim, rolled back."""
    from sync.leases import _CLAIM  # the query itself, not a copy of it

    params = {"owner": "bench-explain", "lease": 30, "only": None, "resources": None}
    with db.transaction(force_rollback=True):
        plan = db.execute("EXPLAIN (ANALYZE, BUFFERS) " + _CLAIM, params).fetchall()
    return "\n".join(r[0] for r in plan)


def upstream_cost(sandbox: httpx.Client, freshness: Freshness, accounts: list[int],
                  seconds: float) -> dict:
    """The sync's upstream requests of ``accounts`` (the bench's own reads taken out): per
    resource per account and hour, and the p50 / max of each account's total per hour."""
    by_resource: dict[str, int] = {}
    totals = []
    for account_id in accounts:
        counted = sandbox.get(f"/_sandbox/requests/{account_id}").json()["requests"]
        own = freshness.upstream_reads.get(account_id, 0)
        if own:
            counted["earnings/transactions"] = counted.get("earnings/transactions", 0) - own
        for name, n in counted.items():
            by_resource[name] = by_resource.get(name, 0) + n
        totals.append(sum(counted.values()) * 3600 / seconds)
    per_hour = {name: n * 3600 / seconds / max(1, len(accounts)) for name, n in sorted(by_resource.items())}
    return {"accounts": len(accounts), "per_account_hour": per_hour,
            "total_p50": percentile(totals, 0.5), "total_max": max(totals, default=0.0)}


# --- the phases ----------------------------------------------------------------------------


def time_initial_backfill(procs: Processes, db, env: dict, workers: int, expected: int,
                          limit: float) -> tuple[float | None, list, list[float]]:
    empty_sync_tables(db)
    started = time.monotonic()
    children = start_workers(procs, env, workers)
    loads, reported = [], 0
    while (left := backfill_left(db, expected)) > 0:
        elapsed = time.monotonic() - started
        loads.append(os.getloadavg()[0])
        if elapsed >= reported:
            print(f"  {workers} worker(s): {left} of {expected} tasks open after {elapsed:.0f} s", flush=True)
            reported += 60
        if elapsed > limit:
            print(f"  {workers} worker(s): {left} of {expected} tasks still open after {limit:.0f} s", flush=True)
            return None, children, loads
        time.sleep(1)
    return time.monotonic() - started, children, loads


def freshness_round(freshness: Freshness, followed: list[int], sampled: list[int], out: dict) -> None:
    for group, ids, follow in (("followed", followed, True), ("other", sampled, False)):
        for account_id in ids:
            try:
                sample = freshness.read(account_id, follow)
            except httpx.HTTPError as exc:
                out["errors"].append(f"{account_id}: {exc!r}")
                continue
            if sample is None:
                out["errors"].append(f"{account_id}: the API did not answer 200")
                continue
            out["lags"][group].append(sample.lag)
            out["delays"].extend(sample.delays)
            out["sources"][sample.source] = out["sources"].get(sample.source, 0) + 1


def steady_state(db, sandbox: httpx.Client, api: httpx.Client, key: str, sizes: dict[int, dict],
                 args) -> dict:
    accounts = list(sizes)
    hot_ids, cold_ids = accounts[:args.hot], accounts[args.hot:]
    followed = hot_ids[:args.follow]
    draw = random.Random(1)
    sandbox.put("/_sandbox/rate-limit", json={"rps": args.upstream_rps, "burst": 0}).raise_for_status()
    sandbox.post("/_sandbox/stats/reset").raise_for_status()
    freshness = Freshness(api, sandbox, key)
    cpu, gaps = ServerCpu(db), PassGaps(db)
    gaps.sample()
    cpu.sample()
    out: dict = {"lags": {"followed": [], "other": []}, "delays": [], "sources": {}, "errors": []}
    loads, live_plan = [], None
    started = time.monotonic()
    while time.monotonic() - started < args.steady_seconds:
        round_started = time.monotonic()
        sampled = draw.sample(cold_ids, min(args.sample, len(cold_ids)))
        freshness_round(freshness, followed, sampled, out)
        gaps.sample()
        cpu.sample()
        loads.append(os.getloadavg()[0])
        if live_plan is None and time.monotonic() - started >= args.steady_seconds / 2:
            live_plan = explain_claim(db)
        time.sleep(max(0.0, ROUND_SECONDS - (time.monotonic() - round_started)))
    elapsed = time.monotonic() - started
    cpu.sample()
    counted = sandbox.get("/_sandbox/requests").json()
    own = sum(freshness.upstream_reads.values())
    return {
        "elapsed": elapsed, **out, "requests": counted["requests"], "rate_limited": counted["rate_limited"],
        "bench_upstream_reads": own, "pg_server_cpu": cpu.server_seconds(),
        "pg_backends_cpu": cpu.backends_seconds(), "gaps": gaps.by_resource(),
        "runs": runs_per_hour(db, elapsed), "live_plan": live_plan or explain_claim(db),
        "idle_cost": upstream_cost(sandbox, freshness, cold_ids, elapsed),
        "hot_cost": upstream_cost(sandbox, freshness, hot_ids, elapsed),
        "load": {"min": min(loads, default=0.0), "mean": sum(loads) / max(1, len(loads)),
                 "max": max(loads, default=0.0)},
    }


# --- the report ----------------------------------------------------------------------------


def _quantiles(values: list[float]) -> str:
    return (f"{len(values)} | {percentile(values, .5):.1f} | {percentile(values, .95):.1f} | "
            f"{max(values, default=float('nan')):.1f}")


def report_run(settings: Settings, workers: int, backfill: dict, steady: dict) -> None:
    elapsed = steady["elapsed"]
    print(f"\n### {workers} worker process(es)\n")
    if backfill.get("seconds") is not None:
        print(f"Initial backfill of every account (first pass + whole history, {backfill['tasks']} tasks): "
              f"**{backfill['seconds']:.0f} s**, load average (1 min) during it "
              f"{min(backfill['loads'], default=0):.1f}..{max(backfill['loads'], default=0):.1f}\n")
    else:
        print(f"Initial backfill: {backfill.get('note', 'not finished')}\n")
    load = steady["load"]
    print(f"Steady state, {elapsed:.0f} s, load average (1 min) {load['min']:.1f} / {load['mean']:.1f} / "
          f"{load['max']:.1f} (min / mean / max):\n")
    print("| freshness (s) | samples | p50 | p95 | max |\n|---|---|---|---|---|")
    print(f"| hot accounts followed, per new transaction: createdAt -> visible (upper bound) | "
          f"{_quantiles(steady['delays'])} |")
    print(f"| hot accounts followed, lag at a reading | {_quantiles(steady['lags']['followed'])} |")
    print(f"| other accounts (random), lag at a reading | {_quantiles(steady['lags']['other'])} |")
    print(f"\nDefault answers by source: {steady['sources']}; failed readings: {len(steady['errors'])}"
          + (f" (first: {steady['errors'][0]})" if steady["errors"] else "") + "\n")
    requests, refused = steady["requests"], steady["rate_limited"]
    own = steady["bench_upstream_reads"]
    sync_total = sum(requests.values()) - own
    print("| upstream resource (the sync's requests) | requests/s | answered 429 |\n|---|---|---|")
    for name in sorted(requests, key=requests.get, reverse=True):
        n = requests[name] - (own if name == "earnings/transactions" else 0)
        print(f"| {name} | {n / elapsed:.2f} | {refused.get(name, 0)} |")
    share = 100 * sum(refused.values()) / sync_total if sync_total else 0.0
    print(f"| all | {sync_total / elapsed:.2f} | {sum(refused.values())} ({share:.2f}%) |")
    print(f"\n(The bench's own sandbox reads, left out above: {own / elapsed:.2f}/s.)\n")
    print("| upstream requests per account and hour | accounts | by resource | total p50 | total max |")
    print("|---|---|---|---|---|")
    for label, cost in (("idle (not hot)", steady["idle_cost"]), ("hot", steady["hot_cost"])):
        parts = ", ".join(f"{k} {v:.1f}" for k, v in cost["per_account_hour"].items())
        print(f"| {label} | {cost['accounts']} | {parts} | {cost['total_p50']:.1f} | {cost['total_max']:.1f} |")
    server, backends = steady["pg_server_cpu"], steady["pg_backends_cpu"]
    print(f"\nPostgreSQL CPU: server {'n/a' if server is None else f'{server:.1f} s = {server / elapsed:.2f} cores'}"
          f"; the bench database's backends {backends:.1f} s = {backends / elapsed:.2f} cores\n")
    print("| resource | interval | passes per pair | longest gap without a completed pass, p95 | max |")
    print("|---|---|---|---|---|")
    for name, gap in steady["gaps"].items():
        interval = interval_of(settings, REGISTRY[name]) if name in REGISTRY else 0
        flag = " (over 2 intervals)" if interval and gap["max"] > 2 * interval + 60 else ""
        print(f"| {name} | {interval} s | {gap['passes']:.1f} | {gap['p95']:.0f} s | {gap['max']:.0f} s{flag} |")
    print(f"\nRuns per account and hour (sync_runs, by kind): {steady['runs']}")
    print("\nTask claim, EXPLAIN ANALYZE half-way through the steady state:\n")
    print("```\n" + steady["live_plan"] + "\n```", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--hot", type=int, default=100, help="accounts with a transaction every 4 s")
    parser.add_argument("--follow", type=int, default=20, help="hot accounts read every round")
    parser.add_argument("--sample", type=int, default=20, help="other accounts read per round")
    parser.add_argument("--workers", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4])
    parser.add_argument("--no-rebackfill", dest="rebackfill", action="store_false",
                        help="time the backfill with the first worker count only")
    parser.add_argument("--steady-seconds", type=float, default=600)
    parser.add_argument("--backfill-limit", type=float, default=1800, help="give up a backfill after this")
    parser.add_argument("--upstream-rps", type=float, default=0.0,
                        help="sandbox per-account limit during the steady state (0: off)")
    parser.add_argument("--claim-tasks", type=int, default=6000, help="task rows for the EXPLAIN")
    parser.add_argument("--logs", default=None, help="directory for the child processes' logs")
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a non-default relay setting (e.g. sync_intervals=earnings=1m); default: none")
    args = parser.parse_args()

    sizes = account_sizes(args.accounts, args.hot)
    expected = len(sizes) * len(REGISTRY)
    logs = Path(args.logs or tempfile.mkdtemp(prefix="relay-scale-"))
    logs.mkdir(parents=True, exist_ok=True)
    print(f"process logs: {logs}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # children are stopped on the way out
    results: dict = {"args": vars(args), "started": datetime.now(UTC).isoformat(), "runs": {}}
    with bench_server() as server, bench_database(server) as url, Processes(logs) as procs:
        sandbox_port, api_port = free_port(), free_port()
        sandbox_url, api_url = f"http://127.0.0.1:{sandbox_port}", f"http://127.0.0.1:{api_port}"
        procs.start("sandbox", [sys.executable, "-m", "sandbox", "--port", str(sandbox_port),
                                "--epoch", str(int(time.time()))],
                    {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")},
                    ready=f"{sandbox_url}/_sandbox/health")
        env = common_env(url, sandbox_url, args.setting)
        settings = Settings.from_env(env)
        print(f"\n## Sync at scale ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)\n\n- machine: {machine()}"
              f"\n- versions: {versions(url)}\n- code: {commit()}\n- load average before: {load()}"
              f"\n- {args.accounts} accounts ({args.hot} hot, {args.follow} of them followed); sandbox "
              f"per-account rate limit in the steady state: {args.upstream_rps or 'off'}"
              f"\n- relay settings: {', '.join(args.setting) or 'defaults'}", flush=True)
        with psycopg.connect(url, autocommit=True) as db, \
                httpx.Client(base_url=sandbox_url, timeout=60) as sandbox, \
                httpx.Client(base_url=api_url, timeout=60) as api:
            org, key = set_up(db, sandbox, sizes)
            procs.start("api", relay("serve", "--port", str(api_port)),
                        {**env, "RELAY_DB_POOL_MAX": "4"}, ready=f"{api_url}/health")
            for n, workers in enumerate(args.workers):
                if n == 0 or args.rebackfill:
                    seconds, children, loads = time_initial_backfill(procs, db, env, workers, expected,
                                                                     args.backfill_limit)
                    backfill: dict[str, Any] = {"seconds": seconds, "tasks": expected, "loads": loads}
                else:
                    children = start_workers(procs, env, workers)
                    backfill = {"note": f"not re-run (the store of the {args.workers[0]}-worker run)"}
                print(f"  {workers} worker(s): initial backfill {backfill.get('seconds')} s", flush=True)
                steady = steady_state(db, sandbox, api, key, sizes, args)
                for child in children:
                    procs.stop(child)
                results["runs"][workers] = {"backfill": backfill, "steady": steady}
                (logs / "results.json").write_text(json.dumps(results, indent=1, default=str))
                report_run(settings, workers, backfill, steady)
            procs.stop_all()
            tasks = pad_tasks(db, org, args.claim_tasks)
            plan = explain_claim(db)
    print(f"\nLoad average after: {load()}\n\nTask claim, EXPLAIN ANALYZE over {tasks} tasks "
          f"(workers stopped, the table padded with idle accounts):\n\n```\n{plan}\n```")
    results["idle_plan"] = plan
    (logs / "results.json").write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
