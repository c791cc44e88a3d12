"""The README's run command: `relay demo` on the embedded default starts the whole stack,
prints a key and an address, and the printed requests answer."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.test_health import free_port

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


def test_relay_demo_runs_the_stack_on_the_embedded_database_and_prints_a_working_key(
    tmp_path: Path,
) -> None:
    api_port, sandbox_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    env.update(
        RELAY_DATA_DIR=str(tmp_path / "relay"),
        RELAY_API_PORT=str(api_port),
        RELAY_SANDBOX_PORT=str(sandbox_port),
        RELAY_LOG_LEVEL="WARNING",
        RELAY_LOG_JSON="false",  # the readable banner (JSON lines: tests/ops/test_stack_logs.py)
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "demo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        output = "".join(_lines_until(proc, r"Stop: Ctrl-C", 120))
        assert "embedded" in output
        key = re.search(r"API key:\s+(crk_live_\S+)", output).group(1)
        base = f"http://127.0.0.1:{api_port}"
        assert f"curl {base}/health" in output

        assert httpx.get(f"{base}/health", timeout=5).status_code == 200
        auth = {"Authorization": f"Bearer {key}"}
        response = httpx.get(f"{base}/v1/1001/chats?limit=1", headers=auth, timeout=15)
        assert response.status_code == 200, response.text
        assert "_rate_limits" in response.json()["_meta"]
        # The worker syncs the demo accounts; the store answers once coverage is there.
        deadline = time.monotonic() + 90
        while True:
            earnings = httpx.get(f"{base}/v1/1001/earnings", headers=auth, timeout=15)
            assert earnings.status_code == 200, earnings.text
            if earnings.json()["_meta"].get("_cache", {}).get("source") == "store":
                break
            assert time.monotonic() < deadline, "the worker never covered the demo account"
            time.sleep(1)
        assert earnings.json()["data"]["list"]
    finally:
        stop_demo(proc)
    assert (tmp_path / "relay" / "pgdata").is_dir()
