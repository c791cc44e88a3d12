"""The README's run command: `relay demo` on the embedded default starts the whole stack,
prints a key and an address, and the printed requests answer."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from app.db.embedded import embedded_running
from tests.fixtures.net import answering, free_port, refuses_connections, wait_for

pytestmark = pytest.mark.slow


def _lines_until(proc: subprocess.Popen, pattern: str, timeout: float) -> list[str]:
    """Stdout lines up to the first that matches ``pattern`` (fails on exit or timeout)."""
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if re.search(pattern, line):
                found.set()
                return

    threading.Thread(target=read, daemon=True).start()
    assert found.wait(timeout), f"no line matching {pattern!r} in {timeout} s: {''.join(lines)}"
    return lines


def stop_demo(proc: subprocess.Popen) -> None:
    """Ctrl-C, as a user stops it; killed if it has not stopped within 30 s."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def _earnings_coverage_end(env: dict, account_id: int) -> int:
    """``relay sync status --json``'s coverage end of the account's earnings (unix seconds;
    0 before any): run as a separate process that joins the demo's embedded database."""
    out = subprocess.run([sys.executable, "-m", "app.cli", "sync", "status", "--json"], env=env,
                         capture_output=True, text=True, check=True).stdout
    ends = [row["coverage_end"] for row in json.loads(out)
            if row["account_id"] == account_id and row["resource"] == "earnings" and row["coverage_end"]]
    return int(datetime.fromisoformat(ends[0]).timestamp()) if ends else 0


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """Not under pytest's tmp_path: as root, PostgreSQL runs as another user, and a concurrent
    pytest session resets /tmp/pytest-of-root to 0700 (initdb then fails mid-way)."""
    with tempfile.TemporaryDirectory(prefix="relay-demo-") as tmp:
        yield Path(tmp)


def test_relay_demo_runs_the_stack_on_the_embedded_database_and_prints_a_working_key(
    data_dir: Path,
) -> None:
    tmp_path = data_dir
    api_port, sandbox_port, other_port = free_port(), free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    env.update(
        RELAY_DATA_DIR=str(tmp_path / "relay"),
        RELAY_API_PORT=str(api_port),
        RELAY_SANDBOX_PORT=str(sandbox_port),
        RELAY_LOG_JSON="false",  # the readable banner (JSON lines: tests/ops/test_stack_logs.py)
        RELAY_SYNC_INTERVALS="earnings=2s",  # the clock test below waits for one head check
    )
    other = None
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "demo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = _lines_until(proc, r"^─{20,}\s*$", 180)  # the banner's closing rule
        output = "".join(lines)
        assert "embedded" in output
        key = re.search(r"API key:\s+(crk_live_\S+)", output).group(1)
        base = f"http://127.0.0.1:{api_port}"
        assert f"curl {base}/health" in output
        # Framed: a titled rule opens it, the stop line and a rule close it; it says how to
        # call relay from another shell.
        assert re.search(r"─+ Creator Relay demo is running ─+", output)
        assert "Stop: Ctrl-C" in lines[-2]
        assert "relay sync status" in output

        assert httpx.get(f"{base}/health", timeout=5).status_code == 200
        auth = {"Authorization": f"Bearer {key}"}
        response = httpx.get(f"{base}/v1/1001/chats?limit=1", headers=auth, timeout=15)
        assert response.status_code == 200, response.text
        assert "_rate_limits" in response.json()["_meta"]
        # The worker syncs the demo accounts; the store answers once coverage is there.
        def from_the_store() -> dict | None:
            earnings = httpx.get(f"{base}/v1/1001/earnings", headers=auth, timeout=15)
            assert earnings.status_code == 200, earnings.text
            body = earnings.json()
            return body if body["_meta"].get("_cache", {}).get("source") == "store" else None

        earnings = wait_for(from_the_store, 90, "the worker to cover the demo account", every=1)
        assert earnings["data"]["list"]

        # The worker reads the sandbox's clock (RELAY_SYNC_CLOCK, as documented for the
        # demo): moved three days on, the new rows sync; the machine's clock never gets there.
        moved = httpx.post(f"http://127.0.0.1:{sandbox_port}/_sandbox/clock/advance",
                           json={"seconds": 3 * 86400}, timeout=5).json()["now"]
        # A generous wait on a loaded machine, polled.
        wait_for(lambda: _earnings_coverage_end(env, 1001) >= moved, 150,
                 "the demo's worker to sync past the sandbox clock", every=1)

        # Another process joins the demo's embedded PostgreSQL, as a second `relay serve`.
        other = subprocess.Popen([sys.executable, "-m", "app.cli", "serve"],
                                 env={**env, "RELAY_API_PORT": str(other_port)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(answering(f"http://127.0.0.1:{other_port}/health", other), 60, "the second relay serve to answer")
    finally:
        stop_demo(proc)
        if other is not None:
            other.terminate()
            other.wait(timeout=30)
    # Stopping the demo stopped all it started, the database too, whoever else had joined it.
    assert proc.returncode == 0
    assert not embedded_running(tmp_path / "relay" / "pgdata")
    assert refuses_connections(f"http://127.0.0.1:{api_port}/health")
    assert refuses_connections(f"http://127.0.0.1:{sandbox_port}/_sandbox/health")
    assert (tmp_path / "relay" / "pgdata").is_dir()
