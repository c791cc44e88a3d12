"""Fixtures of the upstream client tests: the sandbox (until registered centrally) and clients."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.settings import Settings
from tests.fixtures.sandbox import fresh_account_id


@pytest.fixture
def account_id() -> int:
    """An upstream account id no other test in this session uses."""
    return fresh_account_id()


@pytest.fixture
def upstream_settings(sandbox) -> Settings:
    """Settings pointing at the sandbox, with timings small enough for fast tests."""
    return Settings(
        upstream_url=sandbox.url,
        upstream_connect_timeout=0.5,
        upstream_read_timeout=0.5,
        upstream_max_attempts=4,
        upstream_backoff_base=0.01,
        upstream_backoff_max=0.05,
        upstream_concurrency_per_account=4,
        upstream_breaker_failures=3,
        upstream_breaker_reset=30.0,
    )


@pytest.fixture
async def upstream_client(upstream_settings: Settings) -> AsyncIterator:
    from app.upstream.client import UpstreamClient

    async with UpstreamClient(upstream_settings) as client:
        yield client
