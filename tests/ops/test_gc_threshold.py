"""The API process's garbage collector runs at ``RELAY_API_GC_YOUNG_THRESHOLD``."""

from __future__ import annotations

import gc

from litestar.testing import TestClient

from app.asgi import create_app


def test_the_api_process_collects_at_its_setting_once_started(api_settings, db):
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, *before[1:])
        with TestClient(create_app(api_settings.replace(api_gc_young_threshold=12_345))) as client:
            assert client.get("/health").status_code == 200
            assert gc.get_threshold() == (12_345, *before[1:])  # the older generations' as they were
    finally:
        gc.set_threshold(*before)
