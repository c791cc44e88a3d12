"""``make bench``: every benchmark case in one run, one Markdown table.

Starts what it needs (a PostgreSQL server unless one is configured, scratch databases,
the sandbox, ``relay serve``, sync processes, the minimal app), runs the selected cases
(printing each case's rows as it ends), stops everything it started -- also on errors,
Ctrl-C and SIGTERM -- prints the table and appends it, with the run's facts, to
docs/benchmarks.md.

Environment: ``BENCH_CASES=a,b`` (default all), ``BENCH_QUICK=1`` (small and short, for
development; not appended unless ``BENCH_APPEND=1``), ``BENCH_ROUNDS``, ``BENCH_SECONDS``,
``BENCH_FRESHNESS_TIMEOUT``, ``BENCH_APPEND=0|1``, ``BENCH_CONTROL=0|1``; the server: ``BENCH_DATABASE_URL``,
``TEST_DATABASE_URL`` or ``RELAY_DATABASE_URL``, else an embedded PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from bench import dataset, facts
from bench.backfill import case_d
from bench.common import bench_database, bench_server
from bench.config import CASES, FEW_CONNECTIONS, MIN_ROUNDS_CLOSE, SERVING_CASES, BenchConfig, flag
from bench.distributed import case_h
from bench.freshness import case_g
from bench.latest import refresh as refresh_latest
from bench.procs import Processes
from bench.report import Row, append_section, summary, table
from bench.serving import case_a, case_b, case_c, case_e, case_f
from bench.stack import Stack, start_sandbox
from bench.wrk import ensure_wrk

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
SERVING = {"a": case_a, "b": case_b, "c": case_c, "e": case_e, "f": case_f}
OWN_DATABASE = {"d": case_d, "g": case_g, "h": case_h}


def _stop(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through every finally: processes stopped


def run_cases(config: BenchConfig, logs: Path) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    notes: list[str] = []
    with bench_server() as server, Processes(logs) as services, Processes(logs) as procs:
        sandbox = start_sandbox(services)
        with bench_database(server) as url:
            stack = Stack(procs, url, sandbox, logs)
            notes.append(f"versions: {facts.versions(url)}")
            data = None
            if SERVING_CASES & set(config.cases):
                print(f"bench: syncing the serving data set ({config.earnings_rows:,} earnings rows)", flush=True)
                data = dataset.build(stack, config)
                notes.append(f"serving data set: account {data.account}, {data.rows:,} earnings rows over 365 days "
                             f"and {config.paged_rows:,} chargebacks and posts, stored by `relay sync backfill` "
                             f"from the sandbox in {data.load_seconds:.0f} s")
            for case in config.cases:
                print(f"bench: case {case}: {CASES[case]}", flush=True)
                began = time.monotonic()
                done = len(rows)
                try:
                    if case in SERVING:
                        assert data is not None  # built above for the serving cases
                        rows += SERVING[case](stack, data, config)
                    else:
                        rows += OWN_DATABASE[case](stack, server, config)
                except Exception as exc:  # one broken case must not hide the others' results
                    traceback.print_exc()
                    rows.append(Row(case, CASES[case], note=f"error: {str(exc).splitlines()[0][:160]}", failed=True))
                finally:
                    procs.stop_all()
                print(f"bench: case {case} took {time.monotonic() - began:.0f} s", flush=True)
                # Each case's rows as soon as it ends: a run cut off later (a server's stop that
                # hangs, a job killed at its time limit) keeps what it measured.
                print(table(rows[done:]), flush=True)
    return rows, notes


def main() -> int:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C even where SIGINT was ignored
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    config = BenchConfig.from_env(os.environ)
    append = flag(os.environ, "BENCH_APPEND", not config.quick)
    if set(config.cases) - {"d"}:
        ensure_wrk()
    logs = Path(tempfile.mkdtemp(prefix="relay-bench-logs-"))
    print(f"bench: cases {','.join(config.cases)}{' (quick)' if config.quick else ''}; process logs in {logs}",
          flush=True)
    started, load_before = datetime.now(UTC), facts.load()
    rows, notes = run_cases(config, logs)
    minutes = (datetime.now(UTC) - started).total_seconds() / 60
    run_facts = [
        f"machine: {facts.machine()}",
        *notes,
        f"load average (1 / 5 / 15 min): {load_before} before, {facts.load()} after",
        f"code: {facts.commit()}; mode: {'quick' if config.quick else 'full'}, {config.rounds} rounds "
        f"(at least {MIN_ROUNDS_CLOSE} in case b and in case a at {FEW_CONNECTIONS} connections or fewer) of "
        f"{config.seconds} s per wrk run; run took {minutes:.1f} min",
        summary(rows),
    ]
    heading = f"make bench, {started:%Y-%m-%d %H:%M} UTC, cases {','.join(config.cases)}"
    body = table(rows)
    print(f"\n## {heading}\n\n" + "\n".join(f"- {f}" for f in run_facts) + "\n\n" + body, flush=True)
    if append:
        append_section(RESULTS, heading, run_facts, body)
        refresh_latest(RESULTS)
        print(f"\nbench: appended to {RESULTS}")
    return 1 if any(row.failed for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
