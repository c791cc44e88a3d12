from __future__ import annotations

import os
import subprocess
import sys

from litestar.testing import AsyncTestClient

from app.asgi import create_app
from app.settings import Settings
from tests.fixtures.database import TEST_KEYS_ENV
from tests.fixtures.net import answering, free_port, wait_for


async def test_health_is_200_when_the_database_answers(settings: Settings) -> None:
    async with AsyncTestClient(app=create_app(settings)) as client:
        response = await client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


async def test_health_is_503_when_the_database_is_unreachable(settings: Settings) -> None:
    unreachable = settings.replace(database_url=f"postgresql://postgres@127.0.0.1:{free_port()}/x")
    async with AsyncTestClient(app=create_app(unreachable)) as client:
        response = await client.get("/health")
    assert response.status_code == 503
    assert response.json()["database"] == "unreachable"


def test_relay_serve_answers_health_over_http(database_url: str) -> None:
    port = free_port()
    env = {**os.environ, **TEST_KEYS_ENV, "RELAY_DATABASE_URL": database_url, "RELAY_API_PORT": str(port)}
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve"], env=env)
    try:
        response = wait_for(answering(f"http://127.0.0.1:{port}/health", proc), 30, "relay serve to answer /health")
        assert response.json() == {"status": "ok", "database": "ok"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
