"""What a benchmark result is worth knowing beside its numbers: machine, versions, load, code."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import psycopg

from app.db.rows import one

ROOT = Path(__file__).resolve().parents[1]
#: Server stacks ``relay serve`` may run on (whichever are installed are reported).
SERVER_PACKAGES = ("uvicorn", "uvloop", "httptools", "granian")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory() -> str:
    try:
        kb = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal:")))
        return f"{kb / 1024**2:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        return "unknown"


def machine() -> str:
    return f"{os.cpu_count()} cores ({_cpu_model()}), {_memory()} memory, {platform.system()} {platform.release()}"


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def versions(database_url: str) -> str:
    with psycopg.connect(database_url) as conn:
        (postgres,) = one(conn.execute("SHOW server_version").fetchone())
    servers = ", ".join(f"{p} {v}" for p in SERVER_PACKAGES if (v := _version(p)))
    return (f"Python {platform.python_version()}, PostgreSQL {postgres.split()[0]}, litestar {_version('litestar')}, "
            f"psycopg {_version('psycopg')}; server packages: {servers}")


def load() -> str:
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" with local changes" if git("status", "--porcelain", "--untracked-files=no") else "")
