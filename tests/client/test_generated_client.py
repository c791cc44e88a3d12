"""The committed client (``clients/python/``) is exactly what ``make client`` writes from the
document the API serves now; that document names every operation once."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from app.openapi.document import openapi_document, render

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "clients" / "python"


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_committed_client_is_what_make_client_writes(tmp_path) -> None:
    pytest.importorskip("openapi_python_client", reason="openapi-python-client is not installed (make install)")
    written = tmp_path / "python"
    subprocess.run([sys.executable, ROOT / "clients" / "generate.py", written], check=True, cwd=ROOT)
    committed, regenerated = _tree(COMMITTED), _tree(written)
    differ = sorted(name for name in committed.keys() | regenerated.keys()
                    if committed.get(name) != regenerated.get(name))
    assert not differ, f"clients/python/ is not what `make client` writes; run it and commit: {differ[:20]}"
    assert "creator_relay_client/api/earnings/earnings_feed.py" in committed


def test_the_document_is_the_same_bytes_on_every_build_and_names_each_operation_once(api_client) -> None:
    document = openapi_document()
    assert render(document) == render(openapi_document())
    # What the app serves (the client is generated from the served document).
    assert document == api_client.get("/docs/openapi.json").json()
    ids = Counter(op["operationId"] for methods in document["paths"].values() for op in methods.values())
    assert ids and max(ids.values()) == 1, [name for name, seen in ids.items() if seen > 1]
    assert ids["earningsFeed"] == 1
