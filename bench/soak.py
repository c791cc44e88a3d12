"""Soak: mixed traffic at ~70% of measured capacity for a bounded time, a worker syncing, the
sandbox injecting faults; statuses counted, RSS and PostgreSQL connections sampled, and at the
end the credits the callers were told, the ledger, the day counter and the balance change.

    .venv/bin/python -m bench.soak                 # 10 minutes
    .venv/bin/python -m bench.soak --minutes 2     # a shorter run

Run by hand; figures go to docs/benchmarks.md ("Soak"). Every phase has a bound, and a
watchdog ends the run past the sum of them: the wall time is the soak's minutes plus the
start-up, the capacity probe and a few seconds (the expected end is printed at the start).
SIGINT, SIGTERM, SIGHUP or the watchdog stop every process the run started (sandbox, API,
worker, an embedded PostgreSQL) and drop its database. Exit status 1 when a 5xx was seen, a
request got no answer within REQUEST_TIMEOUT, or the books disagree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg
from psycopg.conninfo import conninfo_to_dict

from app.db.urls import plain_url
from bench import facts
from bench.common import bench_database, bench_server
from bench.procs import GRACE_SECONDS, Processes, exit_on_signals, free_port, rearm, relay_command
from bench.soak_report import (
    Books,
    Sample,
    Tally,
    books_check,
    connections,
    flatness,
    print_report,
    rss_kb,
    sandbox_counts,
)
from bench.stack import Stack, provision
from tests.fixtures.sandbox import SandboxServer

ORGANIZATION = "soak"
ACCOUNTS = (1, 2)
STORE = ("/v1/{a}/payouts/chargebacks", "/v1/{a}/payouts/requests", "/v1/{a}/posts", "/v1/{a}/earnings")
LIVE = ("/v1/{a}/chats", "/v1/{a}/notifications", "/v1/{a}/vault/lists")
#: Sandbox faults, 5% of its requests in all.
FAULTS = {"SANDBOX_ERROR_RATE": "0.03", "SANDBOX_TIMEOUT_RATE": "0.01", "SANDBOX_TRUNCATE_RATE": "0.01",
          "SANDBOX_TIMEOUT_SECONDS": "3"}

#: One caller request at most, answer read (a live route meeting an upstream timeout and
#: retrying fits well inside); past it the request counts as unanswered.
REQUEST_TIMEOUT = 30.0
#: The open loop's cap on requests waiting for an answer. A machine slower than measured
#: would otherwise pile up requests without bound (and the drain at the end with them); a
#: request due while the cap is reached is not sent and is counted as shed.
MAX_IN_FLIGHT = 128
#: Bounds of the phases around the traffic: the stack's start-up (database, sandbox, API,
#: worker), the books read at the end, the database dropped.
STARTUP_BOUND = 180.0
BOOKS_BOUND = 30.0
SETTLE_SECONDS = 2.0  # ledger rows are written after the responses (0.1 s); allowances end within 1 s
#: What a run usually takes besides the probe and the soak (start-up, settle, stop), for the
#: expected end printed at the start.
USUAL_OVERHEAD = 30.0


class Traffic:
    """Callers of the store and live routes (70% / 30%), tallying what they see."""

    def __init__(self, url: str, key: str) -> None:
        self.url, self.key = url, key
        self.tally = Tally()
        self.scheduled = 0

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, headers={"Authorization": f"Bearer {self.key}"},
                                 timeout=REQUEST_TIMEOUT, limits=httpx.Limits(max_connections=MAX_IN_FLIGHT))

    async def one(self, client: httpx.AsyncClient) -> None:
        kind, paths = ("store", STORE) if random.random() < 0.7 else ("live", LIVE)
        path = random.choice(paths).format(a=random.choice(ACCOUNTS))
        tally = self.tally
        started = time.perf_counter()
        try:
            response = await asyncio.wait_for(client.get(path), REQUEST_TIMEOUT)
        except (httpx.HTTPError, TimeoutError) as exc:
            tally.statuses[(kind, 0)] += 1
            tally.reasons[(kind, 0, type(exc).__name__)] += 1
            return
        tally.latencies[kind].append(time.perf_counter() - started)
        tally.statuses[(kind, response.status_code)] += 1
        tally.credits_told += int(response.headers.get("x-credits-used", "0"))
        if response.status_code >= 300:
            tally.reasons[(kind, response.status_code, reason(response))] += 1

    async def closed_loop(self, seconds: float, callers: int = 32) -> float:
        """Requests per second answered with ``callers`` in a closed loop for ``seconds``."""
        async with self.client() as client:
            stop = time.monotonic() + seconds

            async def caller() -> None:
                while time.monotonic() < stop:
                    await self.one(client)

            started = time.monotonic()
            await asyncio.gather(*(caller() for _ in range(callers)))
            return sum(self.tally.statuses.values()) / (time.monotonic() - started)

    async def open_loop(self, rate: float, seconds: float) -> float:
        """Requests at ``rate`` per second for ``seconds``, whatever the answers take (at most
        MAX_IN_FLIGHT waiting); then at most REQUEST_TIMEOUT for the last answers. Returns the
        rate sent."""
        in_flight: set[asyncio.Task] = set()
        async with self.client() as client:
            start = time.monotonic()
            while (elapsed := time.monotonic() - start) < seconds:
                for _ in range(int(elapsed * rate) - self.scheduled):
                    self.scheduled += 1
                    if len(in_flight) >= MAX_IN_FLIGHT:
                        self.tally.shed += 1
                        continue
                    task = asyncio.create_task(self.one(client))
                    in_flight.add(task)
                    task.add_done_callback(in_flight.discard)
                await asyncio.sleep(0.005)
            sent = (self.scheduled - self.tally.shed) / (time.monotonic() - start)
            if in_flight:
                _, pending = await asyncio.wait(set(in_flight), timeout=REQUEST_TIMEOUT + 1)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                self.tally.cancelled += len(pending)
        return sent


def reason(response: httpx.Response) -> str:
    """``code: message`` of an error body, else the start of the body."""
    try:
        body = response.json()
        return f"{body.get('code', '?')}: {body.get('error', '?')}"
    except (ValueError, AttributeError):
        return response.text[:120]


async def sample_until(stop: float, every: float, api_pid: int, worker_pid: int, conn: psycopg.Connection,
                       samples: list[Sample]) -> None:
    start = time.monotonic()
    while (now := time.monotonic()) < stop:
        samples.append(Sample(now - start, rss_kb(api_pid), rss_kb(worker_pid), connections(conn)))
        await asyncio.sleep(min(every, max(0.0, stop - time.monotonic())))


async def soak(traffic: Traffic, rate: float, seconds: float, sampler: dict) -> float:
    sampled = asyncio.create_task(sample_until(time.monotonic() + seconds, max(5.0, seconds / 40), **sampler))
    achieved = await traffic.open_loop(rate, seconds)
    await sampled
    return achieved


def start_sandbox(procs: Processes) -> SandboxServer:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    env.update({f"RELAY_{name}": value for name, value in FAULTS.items()})
    url = f"http://127.0.0.1:{port}"
    procs.start("sandbox", relay_command("sandbox", "--host", "127.0.0.1", "--port", str(port)), env,
                ready=f"{url}/_sandbox/health")
    return SandboxServer(url, epoch=0)


def clock(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S UTC")


def bound_after_startup(args: argparse.Namespace) -> float:
    """Longest the run may last once its stack is up: every phase at its bound."""
    return (args.capacity_seconds + REQUEST_TIMEOUT + args.minutes * 60 + REQUEST_TIMEOUT + 1 + SETTLE_SECONDS
            + BOOKS_BOUND + GRACE_SECONDS + BOOKS_BOUND)


def run(args: argparse.Namespace) -> dict:
    began = time.time()
    seconds = args.minutes * 60
    expected = USUAL_OVERHEAD + args.capacity_seconds + seconds
    print(f"started {clock(began)}; expected end about {clock(began + expected)}, at the latest "
          f"{clock(began + STARTUP_BOUND + bound_after_startup(args))} (watchdog)", flush=True)
    load_before = facts.load()
    print(f"machine: {facts.machine()}; code {facts.commit()}; load average (1 / 5 / 15 min) {load_before}",
          flush=True)
    logs = Path(tempfile.mkdtemp(prefix="relay-soak-"))
    with bench_server() as server, bench_database(server) as database_url, Processes(logs) as procs:
        print(f"database {conninfo_to_dict(plain_url(database_url))['dbname']}", flush=True)
        print(f"versions: {facts.versions(database_url)}", flush=True)
        sandbox = start_sandbox(procs)
        stack = Stack(procs, database_url, sandbox, logs)
        key = provision(database_url, ORGANIZATION, *ACCOUNTS)
        url = f"http://127.0.0.1:{free_port()}"
        api = procs.start("api", relay_command("serve", "--port", url.rsplit(":", 1)[1], "--workers", "1"),
                          stack.env(), ready=f"{url}/health")
        worker = procs.start("worker", relay_command("worker"), stack.env(sync_lease_seconds="30"))
        for name, pid in procs.running.items():
            print(f"started {name} pid {pid}", flush=True)
        rearm(bound_after_startup(args))
        up = time.time()
        print(f"stack up in {up - began:.0f} s; soak traffic ends about "
              f"{clock(up + args.capacity_seconds + seconds)}", flush=True)

        with psycopg.connect(plain_url(database_url), autocommit=True) as conn:
            conn.execute(f"SET statement_timeout = {int(BOOKS_BOUND * 1000)}")
            before = Books.read(conn, ORGANIZATION)
            probe = Traffic(url, key)
            capacity = asyncio.run(probe.closed_loop(args.capacity_seconds))
            rate = capacity * args.load
            print(f"capacity {capacity:.0f} req/s (closed loop, 32 callers, {args.capacity_seconds:g} s); "
                  f"soak traffic at {rate:.0f} req/s for {args.minutes:g} min", flush=True)
            faults_before = sandbox_counts(sandbox.url)
            traffic = Traffic(url, key)
            samples: list[Sample] = []
            sampler = {"api_pid": api.pid, "worker_pid": worker.pid, "conn": conn, "samples": samples}
            achieved = asyncio.run(soak(traffic, rate, seconds, sampler))
            faults_after = sandbox_counts(sandbox.url)
            time.sleep(SETTLE_SECONDS)
            after = Books.read(conn, ORGANIZATION)

    told = probe.tally.credits_told + traffic.tally.credits_told
    caller_statuses: Counter[str] = Counter()
    for tally in (probe.tally, traffic.tally):
        for (_, status), n in tally.statuses.items():
            caller_statuses[str(status)] += n
    summary = {
        "minutes": args.minutes, "load": args.load, "capacity": capacity, "rate": rate, "achieved": achieved,
        "logs": str(logs), "sandbox_soak": dict(faults_after - faults_before), "sandbox_run": dict(faults_after),
        "sync_runs": after.sync_runs, "flatness": flatness(samples, seconds),
        "books": books_check(before, after, told), "ledger_statuses": after.ledger_statuses,
        "caller_statuses": dict(caller_statuses), "wall_s": time.time() - began, "expected_s": expected,
        "server_errors": probe.tally.server_errors + traffic.tally.server_errors,
        "unanswered": probe.tally.unanswered + traffic.tally.unanswered,
        "load_before": load_before, "load_after": facts.load(),
    }
    print_report(summary, traffic.tally, probe.tally, samples)
    (logs / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--load", type=float, default=0.7, help="fraction of the measured capacity")
    parser.add_argument("--capacity-seconds", type=float, default=15.0, help="length of the capacity probe")
    args = parser.parse_args()
    with exit_on_signals(watchdog=STARTUP_BOUND + bound_after_startup(args)):
        summary = run(args)
    clean = summary["server_errors"] == 0 and summary["unanswered"] == 0 and summary["books"]["equal"]
    sys.exit(0 if clean else 1)


if __name__ == "__main__":
    main()
