"""The generated client imported in place (``clients/python/``, as committed: the tests drive
what users get); the store routes' set-up (``tests/store/conftest.py``); ``relay serve``
(``running.py``)."""

import sys
from pathlib import Path

from tests.client.running import relay  # noqa: F401
from tests.store.conftest import _fresh_coverage_cache, _sandbox_world, api_settings, store_api  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
