"""The code passes mypy as pyproject.toml configures it ([tool.mypy]: app, sync, sandbox and
bench): the suite runs it, so a change that passes None where a value is required, or calls
a method a type does not have, fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_nothing(tmp_path: Path) -> None:
    mypy = Path(sys.executable).with_name("mypy")  # the dev lock's, in this venv
    # A cache of its own: nothing left in the tree, no stale cache from another checkout.
    result = subprocess.run(
        [str(mypy), "--cache-dir", str(tmp_path / "mypy-cache")], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
