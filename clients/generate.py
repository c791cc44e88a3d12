"""Writes the generated Python client: ``python clients/generate.py [OUTPUT]`` (``make client``).

The document is the one the API serves (``relay openapi``: the app built in-process, no
server), the generator the openapi-python-client of the lock file, run with this folder's
config and README template; OUTPUT (default ``clients/python``) is replaced whole.
``tests/client/test_generated_client.py`` writes it into a scratch folder and compares.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "openapi-python-client.yaml"
TEMPLATES = HERE / "templates"
OUTPUT = HERE / "python"


def generate(output: Path = OUTPUT) -> None:
    from app.openapi.document import openapi_document, render

    # The generator and the ruff it formats with are the ones installed beside this Python.
    tools = Path(sys.executable).parent
    environment = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}",
                   "RUFF_NO_CACHE": "true"}  # no .ruff_cache left in the output
    with tempfile.TemporaryDirectory() as scratch:
        document = Path(scratch) / "openapi.json"
        document.write_text(render(openapi_document()), encoding="utf-8")
        subprocess.run(
            [tools / "openapi-python-client", "generate", "--path", document, "--config", CONFIG,
             "--custom-template-path", TEMPLATES, "--meta", "poetry", "--output-path", output,
             "--overwrite", "--fail-on-warning"],
            check=True, env=environment, stdout=subprocess.DEVNULL,
        )


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT)
