"""The code passes ruff as pyproject.toml configures it ([tool.ruff]): the suite runs it, so a
change that leaves an unused import or an unsorted import block fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing() -> None:
    ruff = Path(sys.executable).with_name("ruff")  # the dev lock's, in this venv
    result = subprocess.run([str(ruff), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
