"""The soak leaves nothing behind: whatever ends it (its end, SIGINT, SIGTERM, SIGHUP, its
watchdog), every process group it started is gone and its database dropped.

The supervision piece (bench.procs) is checked on a small script starting ``sleep`` groups;
the soak itself once, stopped by SIGTERM in the middle of its traffic.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psycopg
import pytest

from app.db.urls import plain_url

ROOT = Path(__file__).resolve().parents[2]

# Starts two groups (one with a forked child), prints their ids, then waits to be ended.
SUPERVISED = textwrap.dedent("""
    import sys, tempfile, time
    from pathlib import Path
    from bench.procs import Processes, exit_on_signals

    watchdog = float(sys.argv[1]) or None
    with exit_on_signals(watchdog=watchdog), Processes(Path(tempfile.mkdtemp())) as procs:
        procs.start("pair", ["sh", "-c", "sleep 60 & sleep 60"], {"PATH": "/usr/bin:/bin"})
        procs.start("one", ["sleep", "60"], {"PATH": "/usr/bin:/bin"})
        time.sleep(0.3)  # the shell has forked its child
        print("groups", *procs.running.values(), flush=True)
        time.sleep(float(sys.argv[2]))
""")


def groups_alive(pgids: set[int]) -> dict[int, int]:
    """pid -> group of every live (not zombie) process in one of ``pgids``."""
    alive = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) in pgids:
            alive[int(entry.name)] = int(fields[2])
    return alive


class Lines:
    """A child's stdout, line by line, readable with a timeout."""

    def __init__(self, process: subprocess.Popen) -> None:
        self._lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self._lines.put(line)

    def until(self, prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line starting {prefix!r} within {timeout} s; output so far:\n{''.join(self.seen)}")


def start(argv: list[str], **env: str) -> subprocess.Popen:
    return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **env}, start_new_session=True)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_stops_every_group_started_and_exits_with_its_number(signum):
    script = start([sys.executable, "-c", SUPERVISED, "0", "60"])
    pgids = {int(pid) for pid in Lines(script).until("groups", 15).split()[1:]}
    alive = groups_alive(pgids)
    assert set(alive.values()) == pgids and len(alive) >= 3  # the pair's shell has forked

    script.send_signal(signum)
    assert script.wait(timeout=15) == 128 + signum
    assert groups_alive(pgids) == {}


def test_the_watchdog_ends_a_run_that_lasts_too_long_and_stops_its_groups():
    script = start([sys.executable, "-c", SUPERVISED, "1.5", "60"])
    pgids = {int(pid) for pid in Lines(script).until("groups", 15).split()[1:]}
    assert script.wait(timeout=15) == 128 + signal.SIGALRM
    assert groups_alive(pgids) == {}


def test_a_normal_end_stops_every_group_too():
    script = start([sys.executable, "-c", SUPERVISED, "0", "0"])
    pgids = {int(pid) for pid in Lines(script).until("groups", 15).split()[1:]}
    assert script.wait(timeout=15) == 0
    assert groups_alive(pgids) == {}


@pytest.mark.slow
def test_sigterm_in_the_middle_of_the_soak_leaves_no_process_and_no_database(postgres_server_url):
    soak = start([sys.executable, "-m", "bench.soak", "--minutes", "1", "--capacity-seconds", "1"],
                 BENCH_DATABASE_URL=postgres_server_url)
    lines = Lines(soak)
    pgids: set[int] = set()
    try:
        # Generous bounds: a busy shared machine starts the stack slowly; a quiet one takes ~10 s.
        database = lines.until("database ", 90).split()[1]
        lines.until("capacity ", 90)  # the soak's traffic is under way
        pgids = {int(line.split()[-1]) for line in lines.seen if line.startswith("started ") and " pid " in line}
        assert len(pgids) == 3  # sandbox, API, worker
        assert groups_alive(pgids)
        time.sleep(1)  # the middle of the soak: a second of its traffic (what is under test)
        soak.send_signal(signal.SIGTERM)
        assert soak.wait(timeout=60) == 128 + signal.SIGTERM, "".join(lines.seen)
    finally:
        if soak.poll() is None:  # the test failed: clean up what the soak did not
            for pgid in {soak.pid} | pgids:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    assert groups_alive(pgids) == {}
    with psycopg.connect(plain_url(postgres_server_url), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (database,)).fetchone()[0] == 0
