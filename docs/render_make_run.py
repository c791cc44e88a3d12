"""Renders docs/make-run.png: the first screen of `make run`, as a newcomer's terminal shows it.

Runs `relay demo` in a pseudo-terminal (so its logs are readable lines and the banner has its
colours) on a scratch data directory and free ports, reads until the banner's closing rule,
stops it with Ctrl-C, then draws the captured screen with rich (SVG) and Debian's headless
chromium (PNG). Run from the checkout, after `make install`:

    .venv/bin/python docs/render_make_run.py
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "make-run.png"
COLUMNS, ROWS = 120, 36


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def capture(data_dir: Path) -> bytes:
    """What `relay demo` writes on a terminal until its banner is complete."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAY_")}
    env.update(TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS), RELAY_DATA_DIR=str(data_dir),
               RELAY_API_PORT="8000" if _port_free(8000) else str(_free_port()),
               RELAY_SANDBOX_PORT="8700" if _port_free(8700) else str(_free_port()))
    env.pop("NO_COLOR", None)
    leader, follower = pty.openpty()
    os.set_blocking(leader, False)
    import fcntl
    import struct
    import termios

    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "relay"), "demo"], cwd=ROOT, env=env,
                            stdin=follower, stdout=follower, stderr=follower, start_new_session=True)
    os.close(follower)
    out = b""
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline and "Stop: Ctrl-C" not in re.sub(r"\x1b\[[0-9;]*m", "", out.decode(errors="replace")):
            select.select([leader], [], [], 1.0)
            try:
                out += os.read(leader, 65536)
            except (BlockingIOError, OSError):
                pass
        time.sleep(1.0)  # the closing rule
        try:
            out += os.read(leader, 65536)
        except (BlockingIOError, OSError):
            pass
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=60)
        os.close(leader)
    return out


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def render(screen: bytes, data_dir: Path) -> None:
    text = screen.decode(errors="replace").replace("\r\n", "\n").replace(str(data_dir), ".relay")
    console = Console(record=True, width=COLUMNS, force_terminal=True, color_system="truecolor", file=open(os.devnull, "w"))
    console.print("$ make run", style="bold")
    console.print(".venv/bin/relay demo")
    console.print(Text.from_ansi(text.rstrip("\n")), soft_wrap=True)
    with tempfile.TemporaryDirectory() as tmp:
        drawing = console.export_svg(title="make run")
        width, height = (round(float(v)) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', drawing).groups())
        page = Path(tmp) / "screen.html"
        page.write_text(f"<html><body style='margin:0'>{drawing}</body></html>")
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--hide-scrollbars", "--disable-gpu",
                        f"--screenshot={OUT}", f"--window-size={width},{height}",
                        page.as_uri()], check=True, capture_output=True, timeout=120)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "relay"
        screen = capture(data_dir)
        render(screen, data_dir)
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
