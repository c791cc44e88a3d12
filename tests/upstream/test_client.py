"""The upstream client over real HTTP against the sandbox, with injected faults."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from app.settings import Settings
from app.upstream import paths
from app.upstream.breaker import BreakerState
from app.upstream.client import UpstreamAccount, UpstreamClient
from app.upstream.errors import (
    UpstreamBadBody,
    UpstreamBadRequest,
    UpstreamCircuitOpen,
    UpstreamCredentialsRejected,
    UpstreamNotFound,
    UpstreamUnavailable,
)
from app.upstream.stats import track_upstream_calls

pytestmark = pytest.mark.usefixtures("sandbox_reset")

PAGE = {"limit": 3, "order": "desc", "marker": None}  # None: not sent
NO_SUCH_LINK = {"link_id": 987654321987}


def account_for(account_id: int) -> UpstreamAccount:
    return UpstreamAccount(account_id, f"sandbox-{account_id}")


def upstream_requests(sandbox) -> int:
    """Requests the sandbox has received on /api/... so far."""
    return sandbox.stats().get("requests", 0)


class FakeClock:
    """A monotonic clock the breaker tests move by hand instead of sleeping."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_get_json_returns_the_decoded_upstream_payload(upstream_client, sandbox, account_id):
    data = await upstream_client.get_json(
        account_for(account_id), paths.EARNINGS_TRANSACTIONS, params=PAGE
    )
    expected = sandbox.get(account_id, "/earnings/transactions", limit=3, order="desc").json()
    assert data == expected
    assert len(data["list"]) == 3


async def test_client_recovers_from_injected_5xx_and_logs_each_retry(
    upstream_client, sandbox, account_id, caplog
):
    sandbox.add_fault("status", count=2, status=503, account_id=account_id)
    caplog.set_level(logging.WARNING, logger="app.upstream.client")
    with track_upstream_calls() as stats:
        data = await upstream_client.get_json(
            account_for(account_id), paths.EARNINGS_TRANSACTIONS, params=PAGE
        )
    assert len(data["list"]) == 3
    assert (stats.calls, stats.attempts, stats.retries, stats.failures) == (1, 3, 2, 0)
    retries = [r for r in caplog.records if r.getMessage() == "upstream_retry"]
    assert [(r.attempt, r.status, r.account_id, r.path) for r in retries] == [
        (1, 503, account_id, paths.EARNINGS_TRANSACTIONS),
        (2, 503, account_id, paths.EARNINGS_TRANSACTIONS),
    ]


async def test_persistent_5xx_raises_unavailable_after_max_attempts(
    upstream_client, sandbox, account_id
):
    sandbox.add_fault("status", count=10, status=502, account_id=account_id)
    before = upstream_requests(sandbox)
    with pytest.raises(UpstreamUnavailable) as caught:
        await upstream_client.get_json(account_for(account_id), paths.EARNINGS_TRANSACTIONS)
    assert caught.value.status == 502
    assert caught.value.attempts == 4
    assert upstream_requests(sandbox) - before == 4
    assert "HTTP 502" in caught.value.reason


async def test_429_is_retried_no_sooner_than_retry_after(upstream_client, sandbox, account_id):
    sandbox.add_fault("rate_limit", count=1, retry_after=1, account_id=account_id)
    started = time.monotonic()
    with track_upstream_calls() as stats:
        data = await upstream_client.get_json(
            account_for(account_id), paths.EARNINGS_TRANSACTIONS, params=PAGE
        )
    assert time.monotonic() - started >= 1.0
    assert len(data["list"]) == 3
    assert stats.retries == 1


async def test_retry_after_longer_than_the_client_waits_fails_at_once_with_it(
    upstream_settings, sandbox, account_id
):
    sandbox.add_fault("rate_limit", count=1, retry_after=120, account_id=account_id)
    async with UpstreamClient(upstream_settings, retry_after_max=5) as client:
        with pytest.raises(UpstreamUnavailable) as caught:
            await client.get_json(account_for(account_id), paths.EARNINGS_TRANSACTIONS)
    assert caught.value.retry_after == 120
    assert caught.value.attempts == 1


async def test_read_timeout_is_retried_and_the_call_recovers(upstream_client, sandbox, account_id):
    sandbox.add_fault("timeout", count=1, seconds=2, account_id=account_id)
    started = time.monotonic()
    with track_upstream_calls() as stats:
        data = await upstream_client.get_json(
            account_for(account_id), paths.EARNINGS_TRANSACTIONS, params=PAGE
        )
    assert len(data["list"]) == 3
    assert stats.attempts == 2
    assert time.monotonic() - started < 2  # gave up on the slow answer at the read timeout


async def test_persistent_timeouts_raise_unavailable(upstream_settings, sandbox, account_id):
    sandbox.add_fault("timeout", count=2, seconds=1, account_id=account_id)
    async with UpstreamClient(upstream_settings.replace(upstream_max_attempts=2)) as client:
        with pytest.raises(UpstreamUnavailable) as caught:
            await client.get_json(account_for(account_id), paths.EARNINGS_TRANSACTIONS)
    assert caught.value.reason == "The upstream platform did not answer in time."
    assert caught.value.attempts == 2


async def test_truncated_body_is_retried_and_the_call_recovers(upstream_client, sandbox, account_id):
    sandbox.add_fault("truncate", count=1, account_id=account_id)
    with track_upstream_calls() as stats:
        data = await upstream_client.get_json(
            account_for(account_id), paths.EARNINGS_TRANSACTIONS, params=PAGE
        )
    assert len(data["list"]) == 3
    assert stats.retries == 1


async def test_persistent_truncated_body_is_a_typed_unavailable_error(
    upstream_client, sandbox, account_id
):
    sandbox.add_fault("truncate", count=10, account_id=account_id)
    with pytest.raises(UpstreamBadBody) as caught:
        await upstream_client.get_json(account_for(account_id), paths.EARNINGS_TRANSACTIONS)
    assert isinstance(caught.value, UpstreamUnavailable)
    assert caught.value.attempts == 4
    assert caught.value.reason == "The upstream platform sent an incomplete answer."


async def test_rejected_credentials_raise_after_exactly_one_request(
    upstream_client, sandbox, account_id
):
    sandbox.reject_credentials(account_id)
    before = upstream_requests(sandbox)
    with pytest.raises(UpstreamCredentialsRejected) as caught:
        await upstream_client.get_json(account_for(account_id), paths.EARNINGS_TRANSACTIONS)
    assert upstream_requests(sandbox) - before == 1
    assert caught.value.attempts == 1
    assert caught.value.status == 401
    assert "credentials" in caught.value.reason


async def test_wrong_token_is_rejected_credentials(upstream_client, account_id):
    with pytest.raises(UpstreamCredentialsRejected):
        await upstream_client.get_json(
            UpstreamAccount(account_id, "sandbox-1"), paths.EARNINGS_TRANSACTIONS
        )


async def test_bad_parameter_raises_bad_request_with_the_upstream_message_and_no_retry(
    upstream_client, sandbox, account_id
):
    before = upstream_requests(sandbox)
    with pytest.raises(UpstreamBadRequest) as caught:
        await upstream_client.get_json(
            account_for(account_id), paths.EARNINGS_TRANSACTIONS, params={"limit": 5000}
        )
    assert upstream_requests(sandbox) - before == 1
    assert caught.value.upstream_message and "limit" in caught.value.upstream_message
    assert caught.value.upstream_message in caught.value.reason


async def test_unknown_object_raises_not_found_without_retry(upstream_client, sandbox, account_id):
    before = upstream_requests(sandbox)
    with pytest.raises(UpstreamNotFound):
        await upstream_client.get_json(
            account_for(account_id), paths.TRACKING_LINK_STATS, path_params=NO_SUCH_LINK
        )
    assert upstream_requests(sandbox) - before == 1


async def test_breaker_opens_after_consecutive_failures_fails_fast_then_half_opens(
    upstream_settings, sandbox, account_id
):
    clock = FakeClock()
    settings = upstream_settings.replace(
        upstream_max_attempts=1, upstream_breaker_failures=2, upstream_breaker_reset=30.0
    )
    account = account_for(account_id)
    async with UpstreamClient(settings, clock=clock) as client:
        sandbox.add_fault("status", count=2, status=503, account_id=account_id)
        for _ in range(2):
            with pytest.raises(UpstreamUnavailable):
                await client.get_json(account, paths.EARNINGS_TRANSACTIONS, params=PAGE)
        assert client.breaker_state(account_id) is BreakerState.OPEN

        # Open: refused without a request, with a message that says so.
        before = upstream_requests(sandbox)
        with pytest.raises(UpstreamCircuitOpen) as caught:
            await client.get_json(account, paths.EARNINGS_TRANSACTIONS, params=PAGE)
        assert isinstance(caught.value, UpstreamUnavailable)
        assert "circuit open" in caught.value.reason
        assert caught.value.attempts == 0
        assert caught.value.retry_after == 30  # seconds until the trial call
        assert upstream_requests(sandbox) == before

        # Another account is not affected.
        await client.get_json(account_for(account_id + 1000), paths.EARNINGS_TRANSACTIONS, params=PAGE)

        # After the reset period one trial goes through; its success closes the breaker.
        clock.now += 30.0
        data = await client.get_json(account, paths.EARNINGS_TRANSACTIONS, params=PAGE)
        assert len(data["list"]) == 3
        assert client.breaker_state(account_id) is BreakerState.CLOSED


async def test_failed_half_open_trial_reopens_the_breaker(upstream_settings, sandbox, account_id):
    clock = FakeClock()
    settings = upstream_settings.replace(upstream_max_attempts=1, upstream_breaker_failures=1)
    account = account_for(account_id)
    async with UpstreamClient(settings, clock=clock) as client:
        sandbox.add_fault("status", count=2, status=500, account_id=account_id)
        with pytest.raises(UpstreamUnavailable):
            await client.get_json(account, paths.EARNINGS_TRANSACTIONS)
        clock.now += settings.upstream_breaker_reset
        with pytest.raises(UpstreamUnavailable) as trial:
            await client.get_json(account, paths.EARNINGS_TRANSACTIONS)
        assert not isinstance(trial.value, UpstreamCircuitOpen)  # the trial really ran
        assert client.breaker_state(account_id) is BreakerState.OPEN
        with pytest.raises(UpstreamCircuitOpen):
            await client.get_json(account, paths.EARNINGS_TRANSACTIONS)


async def test_final_answers_do_not_count_toward_the_breaker(upstream_settings, sandbox, account_id):
    settings = upstream_settings.replace(upstream_breaker_failures=1)
    account = account_for(account_id)
    async with UpstreamClient(settings) as client:
        with pytest.raises(UpstreamBadRequest):
            await client.get_json(account, paths.EARNINGS_TRANSACTIONS, params={"limit": 0})
        with pytest.raises(UpstreamNotFound):
            await client.get_json(account, paths.TRACKING_LINK_STATS, path_params=NO_SUCH_LINK)
        sandbox.reject_credentials(account_id)
        with pytest.raises(UpstreamCredentialsRejected):
            await client.get_json(account, paths.EARNINGS_TRANSACTIONS)
        assert client.breaker_state(account_id) is BreakerState.CLOSED


async def test_requests_in_flight_per_account_are_bounded(upstream_settings, sandbox, account_id):
    # Each request takes 0.3 s upstream; with 2 slots, 6 calls need at least 3 rounds.
    settings = upstream_settings.replace(upstream_concurrency_per_account=2)
    sandbox.add_fault("latency", count=6, ms=300, account_id=account_id)
    account = account_for(account_id)
    async with UpstreamClient(settings) as client:
        started = time.monotonic()
        await asyncio.gather(
            *(client.get_json(account, paths.EARNINGS_TRANSACTIONS, params=PAGE) for _ in range(6))
        )
        assert time.monotonic() - started >= 0.9


async def test_track_upstream_calls_sums_concurrent_calls_in_the_block(
    upstream_client, sandbox, account_id
):
    sandbox.add_fault("status", count=1, status=503, account_id=account_id)
    account = account_for(account_id)
    with track_upstream_calls() as run:
        await asyncio.gather(
            *(upstream_client.get_json(account, paths.EARNINGS_TRANSACTIONS) for _ in range(3))
        )
    assert (run.calls, run.attempts, run.retries, run.failures) == (3, 4, 1, 0)
    with track_upstream_calls() as outer:
        with track_upstream_calls() as inner:
            await upstream_client.get_json(account, paths.EARNINGS_TRANSACTIONS)
        await upstream_client.get_json(account, paths.EARNINGS_TRANSACTIONS)
    assert (inner.calls, outer.calls) == (1, 2)  # nested blocks each count their own calls
    assert (run.calls, run.attempts) == (3, 4)  # a closed block counts nothing more


async def test_settings_timeouts_reach_the_http_client(upstream_settings: Settings):
    async with UpstreamClient(upstream_settings) as client:
        timeout = client._http.timeout
    assert (timeout.connect, timeout.read) == (0.5, 0.5)


async def test_a_call_past_its_deadline_is_an_upstream_timeout(upstream_settings, sandbox, account_id):
    # Every attempt hangs longer than the deadline; without one, 4 attempts of a 0.5 s read
    # timeout each plus backoff would pass.
    sandbox.add_fault("timeout", count=10, seconds=5.0, account_id=account_id)
    settings = upstream_settings.replace(upstream_read_timeout=0.4)
    async with UpstreamClient(settings, deadline=0.6) as client:
        started = time.monotonic()
        with pytest.raises(UpstreamUnavailable) as caught:
            await client.get_json(account_for(account_id), paths.EARNINGS_TRANSACTIONS, params=PAGE)
        elapsed = time.monotonic() - started
    assert caught.value.code == "upstream_timeout"
    assert "within 0.6 s" in caught.value.reason
    assert caught.value.attempts == 2  # the second attempt was cut by the deadline
    assert 0.6 <= elapsed < 1.5


async def test_without_a_deadline_a_worker_call_retries_past_it(upstream_settings, sandbox, account_id):
    sandbox.add_fault("timeout", count=2, seconds=5.0, account_id=account_id)
    settings = upstream_settings.replace(upstream_read_timeout=0.4)
    async with UpstreamClient(settings) as client:
        data = await client.get_json(account_for(account_id), paths.EARNINGS_TRANSACTIONS, params=PAGE)
    assert data["list"]  # the third attempt answered, after the 0.8 s of the first two
