"""Sync at scale (by hand, bounded): many small accounts, several worker processes.

    python -m bench.sync_scale [--accounts 1000] [--workers 1,2,4] [--steady-seconds 600]
                               [--hot 10] [--upstream-rps 0] [--database-url URL]

What it does, on a scratch database (``BENCH_DATABASE_URL`` / ``TEST_DATABASE_URL`` or an
embedded PostgreSQL) and a sandbox subprocess whose clock follows real time:

1. sizes ``--accounts`` sandbox accounts "realistically small" (earnings 200..3000 rows over
   90..365 days, 2..8 tracking links, drawn from a fixed seed) plus ``--hot`` accounts that
   gain a transaction every ~4 s (5,000 rows over the last 6 hours, going on at that rate),
   and connects them all to one organization;
2. for each worker count: empties the synced tables and the task table, starts that many
   ``relay worker`` processes (default settings: every new account starts with a whole
   history backfill) and times until every account's every resource has completed its
   first pass and its backfill;
3. keeps the last worker set running for ``--steady-seconds`` with a ``relay serve``
   process in front, and measures: freshness (below), upstream requests per second by
   resource and the share answered 429 (the sandbox's counters), the CPU time of the
   PostgreSQL backends of the bench database, and the largest coverage lag per resource
   (no account starved: every one stays within two intervals);
4. EXPLAIN ANALYZE of the task-claim query over the task table (``--accounts`` x 6 tasks).

Freshness of one sample of one account: the API's default earnings answer is read, then
the same with ``fresh=true`` (the upstream, live). The lag is the age of the oldest
upstream row missing from the default answer (0 when none is missing). Hot accounts are
sampled every round; ``--sample`` other accounts per round, drawn at random.

Results: docs/benchmarks.md ("Sync at scale").
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import admin  # noqa: E402
from app.crypto.keyring import Keyring  # noqa: E402
from app.crypto.keys import generate_key  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.common import bench_database, bench_server  # noqa: E402
from bench.facts import machine  # noqa: E402
from bench.procs import Processes, free_port  # noqa: E402
from sync.resources import REGISTRY, interval_of  # noqa: E402

FIRST_ACCOUNT = 2_000_001
SYNCED_TABLES = ("earnings", "chargebacks", "payout_requests", "posts", "tracking_links",
                 "tracking_link_daily_stats", "earnings_daily", "sync_runs", "sync_state", "sync_tasks")


# --- processes ---------------------------------------------------------------------------


def relay(*args: str) -> list[str]:
    """``relay ARGS`` from the code next to this file (the bench may run from a copy)."""
    return [sys.executable, "-m", "app.cli", *args]


#: RELAY_SECRET_KEYS of every process of the run (a configured database needs keys).
SECRET_KEYS = generate_key()
KEYRING = Keyring([SECRET_KEYS])


def common_env(database_url: str, sandbox_url: str) -> dict[str, str]:
    return {**os.environ, "RELAY_DATABASE_URL": database_url, "RELAY_UPSTREAM_URL": sandbox_url,
            "RELAY_SECRET_KEYS": SECRET_KEYS, "RELAY_LOG_JSON": "true", "RELAY_LOG_LEVEL": "WARNING"}


# --- set-up ------------------------------------------------------------------------------


def account_sizes(count: int, hot: int) -> dict[int, dict]:
    """Deterministic, small, varied sizes; the first ``hot`` accounts are busy."""
    draw = random.Random(15)
    sizes = {}
    for k in range(count):
        account_id = FIRST_ACCOUNT + k
        if k < hot:
            sizes[account_id] = {"earnings": 5000, "history_days": 0.25, "tracking_links": 4}
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
    (done,) = db.execute(
        """
        SELECT count(*) FROM sync_tasks t JOIN sync_state s USING (account_id, resource)
        WHERE t.backfill_since IS NULL AND s.last_success_at IS NOT NULL
        """
    ).fetchone()
    return expected - done


class PostgresCpu:
    """CPU seconds of the server processes serving one database (read from /proc)."""

    def __init__(self, db: psycopg.Connection, database: str) -> None:
        self.db = db
        self.database = database
        self.ticks = os.sysconf("SC_CLK_TCK")
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def _cpu(self, pid: int) -> float | None:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / self.ticks

    def sample(self) -> None:
        pids = [r[0] for r in self.db.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,))]
        for pid in pids:
            cpu = self._cpu(pid)
            if cpu is not None:
                self.first.setdefault(pid, cpu)
                self.last[pid] = cpu

    def seconds(self) -> float | None:
        if not self.last:
            return None
        return sum(self.last[p] - self.first[p] for p in self.last)


def freshness_lag(api: httpx.Client, key: str, account_id: int) -> tuple[float, str] | None:
    """(lag seconds, source of the default answer) for one account, or None on an error."""
    headers = {"Authorization": f"Bearer {key}"}
    default = api.get(f"/v1/{account_id}/earnings", headers=headers)
    fresh = api.get(f"/v1/{account_id}/earnings", params={"fresh": "true"}, headers=headers)
    now = time.time()
    if default.status_code != 200 or fresh.status_code != 200:
        return None
    served = default.json()
    have = {row["id"] for row in served["data"]["list"]}
    oldest_served = min((row["createdAt"] for row in served["data"]["list"]), default="")
    missing = [row["createdAt"] for row in fresh.json()["data"]["list"]
               if row["id"] not in have and row["createdAt"] >= oldest_served]
    lag = now - datetime.fromisoformat(min(missing)).timestamp() if missing else 0.0
    return max(0.0, lag), served["_meta"]["_cache"]["source"]


def coverage_lags(db: psycopg.Connection) -> dict[str, tuple[float, float]]:
    """Per resource: (p95, max) of now - coverage_end across accounts, seconds."""
    rows = db.execute(
        """
        SELECT resource,
               percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM now() - coverage_end)),
               max(extract(epoch FROM now() - coverage_end)),
               count(*) FILTER (WHERE coverage_end IS NULL)
        FROM sync_state GROUP BY resource ORDER BY resource
        """
    ).fetchall()
    return {r[0]: (float(r[1] or 0), float(r[2] or 0), int(r[3])) for r in rows}


def pad_tasks(db: psycopg.Connection, organization: int, wanted: int) -> int:
    """Add idle accounts (tasks not due, spread over the next interval) until the task table
    holds ``wanted`` rows, so the claim is measured at the size asked; returns the count."""
    (have,) = db.execute("SELECT count(*) FROM sync_tasks").fetchone()
    (last,) = db.execute("SELECT max(id) FROM accounts").fetchone()
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
    db.execute("ANALYZE sync_tasks")
    (have,) = db.execute("SELECT count(*) FROM sync_tasks").fetchone()
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
        result.setdefault(resource, {})[kind] = per_account * 3600 / seconds
    return result


def explain_claim(db: psycopg.Connection) -> str:
    """EXPLAIN ANALYZE of one claim, rolled back."""
    from sync.leases import _CLAIM  # the query itself, not a copy of it

    params = {"owner": "bench-explain", "lease": 30, "only": None, "resources": None}
    with db.transaction(force_rollback=True):
        plan = db.execute("EXPLAIN (ANALYZE, BUFFERS) " + _CLAIM, params).fetchall()
    return "\n".join(r[0] for r in plan)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


# --- the phases ----------------------------------------------------------------------------


def time_initial_backfill(procs: Processes, db, env: dict, workers: int, expected: int,
                          limit: float) -> tuple[float | None, list]:
    empty_sync_tables(db)
    started = time.monotonic()
    children = [procs.start(f"worker-{workers}-{n}", relay("worker"),
                            {**env, "RELAY_WORKER_ID": f"bench-{workers}-{n}"})
                for n in range(workers)]
    while (left := backfill_left(db, expected)) > 0:
        if int(time.monotonic() - started) % 30 == 0:
            print(f"  {workers} worker(s): {left} of {expected} tasks open", flush=True)
        if time.monotonic() - started > limit:
            print(f"  {workers} worker(s): {left} of {expected} tasks still open after {limit:.0f} s")
            return None, children
        time.sleep(1)
    return time.monotonic() - started, children


def steady_state(db, sandbox: httpx.Client, api: httpx.Client, key: str, cpu: PostgresCpu,
                 sizes: dict[int, dict], hot: int, seconds: float, sample: int, rps: float) -> dict:
    accounts = list(sizes)
    sandbox.put("/_sandbox/rate-limit", json={"rps": rps, "burst": 0}).raise_for_status()
    hot_ids, cold_ids = accounts[:hot], accounts[hot:]
    draw = random.Random(1)
    sandbox.post("/_sandbox/stats/reset").raise_for_status()
    cpu.sample()
    started = time.monotonic()
    lags: dict[str, list[float]] = {"hot": [], "other": []}
    sources: dict[str, int] = {}
    probes = 0  # the bench's own fresh=true reads (upstream earnings requests)
    while time.monotonic() - started < seconds:
        round_started = time.monotonic()
        for group, ids in (("hot", hot_ids), ("other", draw.sample(cold_ids, min(sample, len(cold_ids))))):
            for account_id in ids:
                measured = freshness_lag(api, key, account_id)
                probes += 1
                if measured is not None:
                    lags[group].append(measured[0])
                    sources[measured[1]] = sources.get(measured[1], 0) + 1
        cpu.sample()
        time.sleep(max(0.0, 10 - (time.monotonic() - round_started)))
    elapsed = time.monotonic() - started
    cpu.sample()
    counted = sandbox.get("/_sandbox/requests").json()
    return {"elapsed": elapsed, "lags": lags, "sources": sources, "requests": counted, "probes": probes,
            "pg_cpu": cpu.seconds(), "coverage": coverage_lags(db), "runs": runs_per_hour(db, elapsed)}


def report(args, backfills: dict[int, float | None], steady: dict, plan: str, tasks: int) -> None:
    elapsed = steady["elapsed"]
    print(f"\n## Sync at scale ({datetime.now().date()}, {machine()})\n")
    print(f"{args.accounts} accounts ({args.hot} hot); sandbox per-account rate limit in the "
          f"steady state: {args.upstream_rps or 'off'} rps\n")
    print("| worker processes | initial backfill of every account |\n|---|---|")
    for workers, seconds in backfills.items():
        print(f"| {workers} | {'not finished' if seconds is None else f'{seconds:.0f} s'} |")
    print(f"\nSteady state, {elapsed:.0f} s with {args.workers[-1]} worker process(es):\n")
    print("| freshness (s) | samples | p50 | p95 | max |\n|---|---|---|---|---|")
    for group, values in steady["lags"].items():
        print(f"| {group} accounts | {len(values)} | {percentile(values, .5):.1f} | "
              f"{percentile(values, .95):.1f} | {max(values, default=float('nan')):.1f} |")
    print(f"\ndefault answers by source: {steady['sources']}\n")
    requests, refused = steady["requests"]["requests"], steady["requests"]["rate_limited"]
    total = sum(requests.values())
    print("| upstream resource | requests/s | answered 429 |\n|---|---|---|")
    for name in sorted(requests, key=requests.get, reverse=True):
        print(f"| {name} | {requests[name] / elapsed:.2f} | {refused.get(name, 0)} |")
    probes = steady["probes"]
    print(f"| (of which the bench's fresh=true probes) | {probes / elapsed:.2f} | |")
    share = 100 * sum(refused.values()) / total if total else 0.0
    print(f"| all | {total / elapsed:.2f} | {sum(refused.values())} ({share:.2f}%) |")
    pg = steady["pg_cpu"]
    print(f"\nPostgreSQL CPU (backends of the bench database): "
          f"{'n/a' if pg is None else f'{pg:.1f} s = {pg / elapsed:.2f} cores'}\n")
    settings = Settings()
    print("| resource | interval | coverage lag p95 | max | no coverage |\n|---|---|---|---|---|")
    for name, (p95, worst, missing) in steady["coverage"].items():
        interval = interval_of(settings, REGISTRY[name])
        flag = " (starved)" if worst > 2 * interval + 60 else ""
        print(f"| {name} | {interval} s | {p95:.0f} s | {worst:.0f} s{flag} | {missing} |")
    print("\nRuns per account and hour in the steady state (by kind):", steady["runs"])
    print(f"\nTask claim, EXPLAIN ANALYZE over {tasks} tasks:\n")
    print("```\n" + plan + "\n```")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--hot", type=int, default=10)
    parser.add_argument("--workers", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4])
    parser.add_argument("--steady-seconds", type=float, default=600)
    parser.add_argument("--backfill-limit", type=float, default=1800, help="give up a backfill after this")
    parser.add_argument("--sample", type=int, default=20, help="other accounts sampled per round")
    parser.add_argument("--upstream-rps", type=float, default=0.0,
                        help="sandbox per-account limit during the steady state (0: off)")
    parser.add_argument("--claim-tasks", type=int, default=6000, help="task rows for the EXPLAIN")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--logs", default=None, help="directory for the child processes' logs")
    args = parser.parse_args()

    sizes = account_sizes(args.accounts, args.hot)
    expected = len(sizes) * len(REGISTRY)
    logs = Path(args.logs or tempfile.mkdtemp(prefix="relay-scale-"))
    print(f"process logs: {logs}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # children are stopped on the way out
    with bench_server() as server, bench_database(server) as url, Processes(logs) as procs:
        sandbox_port, api_port = free_port(), free_port()
        sandbox_url = f"http://127.0.0.1:{sandbox_port}"
        procs.start("sandbox", [sys.executable, "-m", "sandbox", "--port", str(sandbox_port)],
                    {**os.environ}, ready=f"{sandbox_url}/_sandbox/health")
        env = common_env(url, sandbox_url)
        with psycopg.connect(url, autocommit=True) as db, \
                httpx.Client(base_url=sandbox_url, timeout=30) as sandbox:
            org, key = set_up(db, sandbox, sizes)
            backfills: dict[int, float | None] = {}
            children: list = []
            for workers in args.workers:
                for child in children:
                    procs.stop(child)
                seconds, children = time_initial_backfill(procs, db, env, workers, expected,
                                                          args.backfill_limit)
                backfills[workers] = seconds
                print(f"  {workers} worker(s): initial backfill {seconds} s", flush=True)
            api_url = f"http://127.0.0.1:{api_port}"
            procs.start("api", relay("serve", "--port", str(api_port)),
                        {**env, "RELAY_DB_POOL_MAX": "4"}, ready=f"{api_url}/health")
            database = db.execute("SELECT current_database()").fetchone()[0]
            with httpx.Client(base_url=api_url, timeout=60) as api:
                steady = steady_state(db, sandbox, api, key, PostgresCpu(db, database), sizes,
                                      args.hot, args.steady_seconds, args.sample, args.upstream_rps)
            procs.stop_all()
            tasks = pad_tasks(db, org, args.claim_tasks)
            plan = explain_claim(db)
    report(args, backfills, steady, plan, tasks)


if __name__ == "__main__":
    main()
