"""Gate benchmark: the same store-backed route with and without the gate, in one run.

Run by hand (needs ``wrk``: ``apt-get install wrk``)::

    .venv/bin/python bench/gate_bench.py

It creates a scratch database (on ``BENCH_DATABASE_URL`` or ``TEST_DATABASE_URL``, else an
embedded PostgreSQL; dropped afterwards), migrates it, seeds one organization (limits
and credits far above what the run uses), one key, one account with 5,000 earnings rows,
then starts one uvicorn worker and alternates ``wrk`` runs on the open and the gated route
(several rounds, so drifting machine load hits both alike). It does it twice: with the gate
statement's asynchronous commit (the default) and with a synchronous commit. It prints a
Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import admin  # noqa: E402
from bench.common import bench_database  # noqa: E402

ACCOUNT = 4242
ROWS = 5000
DURATION = int(os.environ.get("BENCH_SECONDS", "8"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "32"))


def seed(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        org = admin.create_organization(conn, "bench", limit_minute=10**9, limit_day=2 * 10**9)
        admin.add_credits(conn, org, 10**12)
        admin.connect_account(conn, org, ACCOUNT, "bench-token")
        start = datetime(2026, 1, 1, tzinfo=UTC)
        with conn.cursor().copy(
            "COPY earnings (account_id, id, type, created_at, amount, net, fee, payload) FROM STDIN"
        ) as copy:
            for i in range(ROWS):
                payload = '{"id": "%d", "amount": 10.0, "net": 8.0}' % i
                copy.write_row((ACCOUNT, str(i), "tips", start + timedelta(minutes=i), 10, 8, 2, payload))
        conn.execute("ANALYZE earnings")
        return admin.create_key(conn, org, "admin").secret


def serve(url: str, port: int, sync_commit: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "RELAY_DATABASE_URL": url,
        "RELAY_LOG_LEVEL": "WARNING",
        "RELAY_BENCH_SYNC_COMMIT": sync_commit,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "bench.gate_app:create_bench_app", "--factory",
         "--port", str(port), "--workers", "1", "--no-access-log", "--log-level", "warning"],
        cwd=ROOT, env=env,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("server did not start")


def wrk(url: str, key: str | None) -> float:
    command = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{DURATION}s", "--latency", url]
    if key:
        command[1:1] = ["-H", f"Authorization: Bearer {key}"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out:
        raise RuntimeError(f"errors during the run:\n{out}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def measure(url: str, key: str, sync_commit: str, port: int) -> dict[str, list[float]]:
    process = serve(url, port, sync_commit)
    try:
        base = f"http://127.0.0.1:{port}"
        routes = {"open": (f"{base}/open/{ACCOUNT}/bench/earnings", None),
                  "gated": (f"{base}/v1/{ACCOUNT}/bench/earnings", key)}
        for target, auth in routes.values():  # warm up (prepared statements, pool)
            subprocess.run(["wrk", "-t1", "-c8", "-d2s", *(["-H", f"Authorization: Bearer {auth}"] if auth else []), target],
                           capture_output=True, check=True)
        results: dict[str, list[float]] = {"open": [], "gated": []}
        for _ in range(ROUNDS):
            for name, (target, auth) in routes.items():
                results[name].append(wrk(target, auth))
        return results
    finally:
        process.terminate()
        process.wait(timeout=15)


def main() -> None:
    with bench_database() as url:
        key = seed(url)
        load = os.getloadavg()
        rows = []
        for label, sync_commit in (("async commit (default)", "off"), ("synchronous commit", "on")):
            r = measure(url, key, sync_commit, port=18000 + len(rows))
            open_rps, gated_rps = statistics.median(r["open"]), statistics.median(r["gated"])
            rows.append((label, open_rps, gated_rps, r))
        with psycopg.connect(url) as conn:
            ledger = conn.execute("SELECT count(*) FROM usage_ledger").fetchone()[0]
    print(f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}; load average before: "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; wrk -t1 -c{CONNECTIONS} -d{DURATION}s x {ROUNDS} rounds, "
          f"1 uvicorn worker; ledger rows written: {ledger}")
    print()
    print("| gate statement | open route (req/s) | gated route (req/s) | gate cost | rounds (open / gated) |")
    print("|---|---|---|---|---|")
    for label, open_rps, gated_rps, r in rows:
        cost = 1 - gated_rps / open_rps
        rounds = " ".join(f"{v:.0f}" for v in r["open"]) + " / " + " ".join(f"{v:.0f}" for v in r["gated"])
        print(f"| {label} | {open_rps:.0f} | {gated_rps:.0f} | {cost:.0%} | {rounds} |")


if __name__ == "__main__":
    main()
