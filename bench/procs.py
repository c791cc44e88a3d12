"""Processes the benchmark starts: each in a process group of its own, all stopped at the end.

A server that forks workers (``relay serve --workers 2``, ``uvicorn --workers 2``) keeps its
children in its group, so stopping the group leaves nothing behind. :class:`Processes` is a
context manager: leaving it -- normally, on an error or on Ctrl-C -- stops every group it
started (SIGTERM to all, then SIGKILL to those left after one shared grace period).

Python dies of SIGTERM without leaving any ``with`` block; :func:`exit_on_signals` turns
SIGTERM, SIGHUP and a watchdog alarm into ``SystemExit`` so the blocks unwind and stop
their processes (and an embedded PostgreSQL) as on Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

GRACE_SECONDS = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def relay_command(*args: str) -> list[str]:
    """``relay ARGS`` as a user runs it: the venv's console script (``python -m app.cli`` without it)."""
    script = Path(sys.executable).with_name("relay")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "app.cli", *args]


#: Signals that end a run (the alarm is :func:`exit_on_signals`'s watchdog).
ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM)


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:
        pass


def _stop_groups(processes: Sequence[subprocess.Popen]) -> None:
    """SIGTERM every group, wait for the leaders within one grace period in all, then SIGKILL
    every group (the leader may be gone while forked children linger)."""
    for process in processes:
        if process.poll() is None:
            _signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for process in processes:
        _signal_group(process, signal.SIGKILL)
        process.wait()


def _stop_group(process: subprocess.Popen) -> None:
    _stop_groups([process])


@contextmanager
def _signals_held() -> Iterator[None]:
    """Ignore the ending signals while processes are being stopped, so a second Ctrl-C or
    SIGTERM cannot cut the stopping short and leave a group running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in ENDING_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def exit_on_signals(watchdog: float | None = None) -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise ``SystemExit(128 + signal)``, so every enclosing
    ``with`` block unwinds. ``watchdog`` (seconds; :func:`rearm` moves it) raises it too when
    the run lasts longer. Only the first signal counts: the others are ignored while the
    blocks unwind."""

    def end(signum: int, _frame: object) -> None:
        for other in ENDING_SIGNALS:
            signal.signal(other, signal.SIG_IGN)
        why = "ran past its watchdog" if signum == signal.SIGALRM else f"got {signal.Signals(signum).name}"
        print(f"{why}; stopping the processes", file=sys.stderr, flush=True)
        raise SystemExit(128 + signum)

    previous = {signum: signal.signal(signum, end) for signum in ENDING_SIGNALS}
    rearm(watchdog)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def rearm(watchdog: float | None) -> None:
    """Set the watchdog of :func:`exit_on_signals` to ``watchdog`` seconds from now (None: off)."""
    signal.setitimer(signal.ITIMER_REAL, watchdog or 0)


class Processes:
    """Start and stop the benchmark's processes; their output goes to ``logs/<name>.log``."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self._running: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str], *, ready: str | None = None,
              timeout: float = 90.0) -> subprocess.Popen:
        """Start ``argv``; with ``ready`` (a URL) wait until it answers below 500."""
        self.logs.mkdir(parents=True, exist_ok=True)
        log = (self.logs / f"{name}.log").open("ab")
        process = subprocess.Popen(list(argv), env=dict(env), stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        self._running.append((name, process))
        if ready:
            self.wait_ready(name, process, ready, timeout)
        return process

    def wait_ready(self, name: str, process: subprocess.Popen, url: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode} while starting; {self.tail(name)}")
            try:
                if httpx.get(url, timeout=2).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{name} did not answer {url} within {timeout:.0f} s; {self.tail(name)}")

    def tail(self, name: str, lines: int = 15) -> str:
        path = self.logs / f"{name}.log"
        text = path.read_text(errors="replace").splitlines()[-lines:] if path.exists() else []
        return f"last lines of {path}:\n" + "\n".join(text)

    @property
    def running(self) -> dict[str, int]:
        """Name -> pid (= process group id) of every process started and not yet stopped."""
        return {name: process.pid for name, process in self._running}

    def stop(self, process: subprocess.Popen) -> None:
        with _signals_held():
            _stop_group(process)
        self._running = [(n, p) for n, p in self._running if p is not process]

    def stop_all(self) -> None:
        """Stop every process still running, all at once (the newest is signalled first)."""
        with _signals_held():
            _stop_groups([process for _, process in reversed(self._running)])
        self._running.clear()

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_all()


def run_to_end(argv: Sequence[str], env: Mapping[str, str], log: Path, timeout: float) -> tuple[float, int]:
    """Run a command in its own group to the end: (wall seconds, its peak RSS in kB).

    The group is killed if this is interrupted or the command runs past ``timeout``.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        started = time.perf_counter()
        process = subprocess.Popen(list(argv), env=dict(env), stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    peak_kb = 0
    try:
        deadline = time.monotonic() + timeout
        while True:
            peak_kb = max(peak_kb, _high_water_kb(process.pid))
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                elapsed = time.perf_counter() - started
                process.returncode = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{argv[1:3]} ran past {timeout:.0f} s; see {log}")
            time.sleep(0.05)
    finally:
        if process.returncode is None:
            _stop_group(process)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {process.returncode}; see {log}")
    return elapsed, peak_kb or usage.ru_maxrss


def _high_water_kb(pid: int) -> int:
    """The process's own peak RSS (VmHWM). Not ru_maxrss: Linux carries the forking
    parent's high-water mark over exec into the child's, so a big benchmark process would
    be counted as the child's."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
