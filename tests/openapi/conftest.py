"""The store routes' set-up (``tests/store/conftest.py``): an account whose store is filled
from the sandbox, for answers served from the store."""

from tests.store.conftest import _fresh_coverage_cache, _sandbox_world, api_settings, store_api  # noqa: F401
