"""The client against an address where nothing listens (real sockets, no sandbox needed)."""

from __future__ import annotations

import socket

import pytest

from app.settings import Settings
from app.upstream.client import UpstreamAccount, UpstreamClient
from app.upstream.errors import UpstreamUnavailable
from app.upstream.stats import track_upstream_calls

ACCOUNT = UpstreamAccount(1, "sandbox-1")


@pytest.fixture
def closed_port_url() -> str:
    """A local URL that refuses connections: a port bound for a moment, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_refused_connection_is_retried_with_backoff_then_unavailable(closed_port_url: str) -> None:
    settings = Settings(
        upstream_url=closed_port_url,
        upstream_max_attempts=4,
        upstream_backoff_base=0.1,
        upstream_backoff_max=0.25,
    )
    waits: list[float] = []

    async def record_sleep(seconds: float) -> None:
        waits.append(seconds)

    async with UpstreamClient(settings, sleep=record_sleep, random=lambda: 1.0) as client:
        with track_upstream_calls() as stats, pytest.raises(UpstreamUnavailable) as caught:
            await client.get_json(ACCOUNT, "/api/accounts/{account_id}/me")
    assert caught.value.attempts == 4
    assert caught.value.reason == "The upstream platform could not be reached."
    assert waits == pytest.approx([0.1, 0.2, 0.25])  # doubling, capped by upstream_backoff_max
    assert (stats.calls, stats.attempts, stats.retries, stats.failures) == (1, 4, 3, 1)


async def test_refused_post_is_retried_because_it_never_reached_the_upstream(closed_port_url: str) -> None:
    settings = Settings(upstream_url=closed_port_url, upstream_max_attempts=3)

    async def no_sleep(seconds: float) -> None:
        return None

    async with UpstreamClient(settings, sleep=no_sleep) as client:
        with pytest.raises(UpstreamUnavailable) as caught:
            await client.request_json(
                "POST", ACCOUNT, "/api/accounts/{account_id}/things", json={"a": 1}
            )
    assert caught.value.attempts == 3
