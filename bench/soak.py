"""Soak: mixed traffic at ~70% of measured capacity for a bounded time, a worker syncing, the
sandbox injecting faults; statuses counted, RSS and PostgreSQL connections sampled, and at the
end the credits the callers were told = the ledger = the balance change.

    .venv/bin/python -m bench.soak                 # 10 minutes
    .venv/bin/python -m bench.soak --minutes 2     # a shorter run

Run by hand; figures go to docs/benchmarks.md ("Soak").
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import psycopg

from app.db.urls import plain_url
from bench.common import bench_database, bench_server
from bench.procs import Processes, free_port, relay_command
from bench.stack import Stack, provision
from tests.fixtures.sandbox import SandboxServer

ACCOUNTS = (1, 2)
STORE = ("/v1/{a}/payouts/chargebacks", "/v1/{a}/payouts/requests", "/v1/{a}/posts", "/v1/{a}/earnings")
LIVE = ("/v1/{a}/chats", "/v1/{a}/notifications", "/v1/{a}/vault/lists")
#: Sandbox faults, 5% of its requests in all.
FAULTS = {"SANDBOX_ERROR_RATE": "0.03", "SANDBOX_TIMEOUT_RATE": "0.01", "SANDBOX_TRUNCATE_RATE": "0.01",
          "SANDBOX_TIMEOUT_SECONDS": "3"}


def start_sandbox(procs: Processes) -> SandboxServer:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    env.update({f"RELAY_{name}": value for name, value in FAULTS.items()})
    url = f"http://127.0.0.1:{port}"
    procs.start("sandbox", relay_command("sandbox", "--host", "127.0.0.1", "--port", str(port)), env,
                ready=f"{url}/_sandbox/health")
    return SandboxServer(url, epoch=0)


def rss_kb(root_pid: int) -> int:
    """Resident memory of a process and its children (uvicorn workers), from /proc."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            status = (entry / "status").read_text()
        except OSError:
            continue
        pid, ppid, pgid = int(entry.name), int(stat[1]), int(stat[2])
        if pid == root_pid or ppid == root_pid or pgid == root_pid:
            total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")) \
                if "VmRSS" in status else 0
    return total


class Traffic:
    def __init__(self, url: str, key: str) -> None:
        self.url, self.key = url, key
        self.statuses: Counter[tuple[str, int]] = Counter()
        self.credits_told = 0
        self.sent = 0

    async def one(self, client: httpx.AsyncClient) -> None:
        kind, paths = ("store", STORE) if random.random() < 0.7 else ("live", LIVE)
        path = random.choice(paths).format(a=random.choice(ACCOUNTS))
        try:
            response = await client.get(path)
        except httpx.HTTPError:
            self.statuses[(kind, 0)] += 1
            return
        self.statuses[(kind, response.status_code)] += 1
        self.credits_told += int(response.headers.get("x-credits-used", "0"))

    async def run(self, rate: float, seconds: float) -> float:
        """Open-loop requests at ``rate`` per second for ``seconds``; returns the answered rate."""
        headers = {"Authorization": f"Bearer {self.key}"}
        limits = httpx.Limits(max_connections=64)
        async with httpx.AsyncClient(base_url=self.url, headers=headers, timeout=60, limits=limits) as client:
            tasks: set[asyncio.Task] = set()
            start = time.monotonic()
            while (elapsed := time.monotonic() - start) < seconds:
                due = int(elapsed * rate) - self.sent
                for _ in range(max(0, due)):
                    self.sent += 1
                    task = asyncio.create_task(self.one(client))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                await asyncio.sleep(0.005)
            await asyncio.gather(*tasks)
            return self.sent / (time.monotonic() - start)


async def capacity(url: str, key: str, seconds: float = 15.0, concurrency: int = 32) -> tuple[float, int]:
    """Requests per second answered with ``concurrency`` callers in a closed loop, and the
    credits those requests were told they cost."""
    traffic = Traffic(url, key)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        stop = time.monotonic() + seconds

        async def caller() -> int:
            done = 0
            while time.monotonic() < stop:
                await traffic.one(client)
                done += 1
            return done

        done = sum(await asyncio.gather(*(caller() for _ in range(concurrency))))
    return done / seconds, traffic.credits_told


def database_connections(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()").fetchone()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--load", type=float, default=0.7, help="fraction of the measured capacity")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="relay-soak-"))
    with bench_server() as server, bench_database(server) as database_url, Processes(logs) as procs:
        sandbox = start_sandbox(procs)
        stack = Stack(procs, database_url, sandbox, logs)
        key = provision(database_url, "soak", *ACCOUNTS)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        api = procs.start("api", relay_command("serve", "--port", str(port), "--workers", "1"), stack.env(),
                          ready=f"{url}/health")
        api_pid = api.pid
        worker = procs.start("worker", relay_command("worker"), stack.env(sync_lease_seconds="30"))

        with psycopg.connect(plain_url(database_url), autocommit=True) as conn:
            balance_before = conn.execute("SELECT credit_balance FROM organizations WHERE name = 'soak'").fetchone()[0]
            measured, measuring_credits = asyncio.run(capacity(url, key))
            rate = measured * args.load
            print(f"capacity {measured:.0f} req/s (closed loop, 32 callers); soak at {rate:.0f} req/s", flush=True)
            traffic = Traffic(url, key)
            samples: list[tuple[float, int, int, int]] = []
            seconds = args.minutes * 60

            async def sample() -> None:
                start = time.monotonic()
                while time.monotonic() - start < seconds:
                    samples.append((time.monotonic() - start, rss_kb(api_pid), rss_kb(worker.pid),
                                    database_connections(conn)))
                    await asyncio.sleep(max(5.0, seconds / 40))

            async def soak() -> float:
                achieved, _ = await asyncio.gather(traffic.run(rate, seconds), sample())
                return achieved

            achieved = asyncio.run(soak())
            time.sleep(2.0)  # the ledger statuses are written off the request path
            balance_after, = conn.execute("SELECT credit_balance FROM organizations WHERE name = 'soak'").fetchone()
            ledger, = conn.execute(
                "SELECT coalesce(sum(credits), 0) FROM usage_ledger l JOIN organizations o ON o.id = l.organization_id"
                " WHERE o.name = 'soak' AND l.debited"
            ).fetchone()
            credits_told = measuring_credits + traffic.credits_told
        procs.stop(worker)

    statuses = Counter(status for (_, status) in traffic.statuses.elements())
    print(f"5xx: {sum(n for status, n in statuses.items() if status >= 500)}, failed connections: {statuses[0]}")
    print(f"sent {traffic.sent} at {achieved:.1f} req/s over {args.minutes:g} min; logs in {logs}")
    for (kind, status), count in sorted(traffic.statuses.items()):
        print(f"  {kind:5} {status}: {count}")
    print("  t(s)  api RSS MB  worker RSS MB  PG connections")
    for at, api_rss, worker_rss, conns in samples:
        print(f"  {at:5.0f}  {api_rss / 1024:9.1f}  {worker_rss / 1024:12.1f}  {conns:14d}")
    print(f"credits: told {credits_told}, ledger {ledger}, balance change {balance_before - balance_after}")


if __name__ == "__main__":
    main()
