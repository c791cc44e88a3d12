"""The load generator: ``wrk`` found (or installed), run, and its report parsed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

RANDOM_MARKER_SCRIPT = Path(__file__).with_name("random_marker.lua")

REQUEST_TIMEOUT = 60
_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


@dataclass(frozen=True)
class WrkResult:
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int  # non-2xx answers plus socket errors


def ensure_wrk() -> str:
    """Path of ``wrk``; installed with apt-get when missing and we are root."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("bench: wrk is missing; installing it (apt-get install -y wrk)", flush=True)
        subprocess.run(["apt-get", "install", "-y", "wrk"], check=False, stdout=subprocess.DEVNULL)
        if not (found := shutil.which("wrk")):
            subprocess.run(["apt-get", "update"], check=False, stdout=subprocess.DEVNULL)
            subprocess.run(["apt-get", "install", "-y", "wrk"], check=True, stdout=subprocess.DEVNULL)
            found = shutil.which("wrk")
        if found:
            return found
    raise SystemExit(
        "bench: wrk is not installed and cannot be installed from here (not root or no apt-get). "
        "Install it (Debian/Ubuntu: sudo apt-get install wrk; macOS: brew install wrk) and run make bench again."
    )


def _ms(value: str, unit: str) -> float:
    return float(value) * _UNITS_MS[unit]


def parse(report: str) -> WrkResult:
    """The numbers of one ``wrk --latency`` report."""
    rps = re.search(r"Requests/sec:\s+([\d.]+)", report)
    total = re.search(r"(\d+) requests in", report)
    p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s|m)\s*$", report, re.M)
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$", report, re.M)
    if not (rps and total and p50 and p99):
        raise ValueError(f"not a wrk --latency report:\n{report}")
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", report))
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", report)
    if socket:
        errors += sum(int(n) for n in socket.groups())
    return WrkResult(float(rps.group(1)), _ms(*p50.groups()), _ms(*p99.groups()), int(total.group(1)), errors)


def run_wrk(
    url: str,
    *,
    connections: int,
    seconds: int,
    threads: int = 2,
    key: str | None = None,
    markers: tuple[int, int] | None = None,
    accounts: Sequence[int] = (),
) -> WrkResult:
    """One wrk run on ``url``; with ``markers`` (lo, hi) every request appends a random marker
    to ``url`` (which must end with the parameter's ``name=``), and with ``accounts`` puts a
    random one of them in place of ``{account}`` in it. Fails on any error answer."""
    # A slow page is a result, not an error: wrk's default 2 s timeout would count it as failed.
    command = [ensure_wrk(), f"-t{min(threads, connections)}", f"-c{connections}", f"-d{seconds}s", "--latency",
               f"--timeout={REQUEST_TIMEOUT}s"]
    env = dict(os.environ)
    if markers:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        command += ["-s", str(RANDOM_MARKER_SCRIPT), origin]
        env.update(BENCH_PATH=url[len(origin):], BENCH_MARKER_LO=str(markers[0]), BENCH_MARKER_HI=str(markers[1]),
                   BENCH_KEY=key or "", BENCH_ACCOUNTS=",".join(map(str, accounts)))
    else:
        if accounts:
            raise ValueError("random accounts go with random markers (bench/random_marker.lua)")
        if key:
            command += ["-H", f"Authorization: Bearer {key}"]
        command.append(url)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=seconds + REQUEST_TIMEOUT + 30)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
    result = parse(done.stdout)
    if result.errors:
        raise RuntimeError(f"{result.errors} failed requests of {result.requests} on {url}: "
                           + " ".join(done.stdout.split()[-16:]))
    return result
