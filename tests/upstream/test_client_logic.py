"""Pure logic of the upstream client: backoff, Retry-After, the breaker, URL pieces."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from app.upstream.breaker import BreakerState, CircuitBreaker, Permit
from app.upstream.client import UpstreamAccount
from app.upstream.retry import backoff_delay, parse_retry_after
from app.upstream.urls import build_path, encode_query

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# --- backoff ------------------------------------------------------------------------


def test_backoff_ceiling_doubles_per_retry_until_the_cap() -> None:
    ceilings = [backoff_delay(n, base=0.2, cap=1.0, random=lambda: 1.0) for n in range(1, 6)]
    assert ceilings == pytest.approx([0.2, 0.4, 0.8, 1.0, 1.0])


def test_backoff_full_jitter_spans_zero_to_the_ceiling() -> None:
    rng = random.Random(1)
    delays = [backoff_delay(3, base=0.2, cap=10.0, random=rng.random) for _ in range(2000)]
    assert all(0.0 <= d <= 0.8 for d in delays)
    # Full jitter: the whole range is used, not just the top (no "equal jitter" floor).
    assert min(delays) < 0.05 and max(delays) > 0.75
    assert backoff_delay(3, base=0.2, cap=10.0, random=lambda: 0.0) == 0.0


def test_backoff_of_a_huge_retry_number_is_the_cap_not_an_overflow() -> None:
    assert backoff_delay(5000, base=0.2, cap=10.0, random=lambda: 1.0) == 10.0


# --- Retry-After --------------------------------------------------------------------


@pytest.mark.parametrize(("header", "seconds"), [("3", 3.0), (" 120 ", 120.0), ("0", 0.0)])
def test_retry_after_delay_seconds(header: str, seconds: float) -> None:
    assert parse_retry_after(header, NOW) == seconds


def test_retry_after_http_date_is_the_time_until_that_date() -> None:
    header = format_datetime(NOW + timedelta(seconds=7), usegmt=True)  # "Sat, 01 Mar 2025 12:00:07 GMT"
    assert parse_retry_after(header, NOW) == 7.0


def test_retry_after_http_date_in_the_past_means_now() -> None:
    header = format_datetime(NOW - timedelta(minutes=5), usegmt=True)
    assert parse_retry_after(header, NOW) == 0.0


@pytest.mark.parametrize("header", [None, "", "soon", "-3", "nan", "inf"])
def test_retry_after_absent_or_unreadable_falls_back(header: str | None) -> None:
    # "-3" is clamped to 0 rather than rejected: waiting less than nothing is nothing.
    expected = 0.0 if header == "-3" else None
    assert parse_retry_after(header, NOW) == expected


# --- circuit breaker ------------------------------------------------------------------


def test_breaker_opens_after_the_threshold_of_consecutive_failures() -> None:
    breaker = CircuitBreaker(3, 30.0, FakeClock())
    assert [breaker.record_failure() for _ in range(3)] == [False, False, True]
    assert breaker.state is BreakerState.OPEN
    assert breaker.acquire() is Permit.REFUSED


def test_breaker_counts_only_consecutive_failures() -> None:
    breaker = CircuitBreaker(3, 30.0, FakeClock())
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.state is BreakerState.CLOSED
    assert breaker.acquire() is Permit.GO


def test_open_breaker_refuses_until_reset_then_lets_exactly_one_trial_through() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(1, 30.0, clock)
    breaker.record_failure()
    clock.advance(29.9)
    assert breaker.acquire() is Permit.REFUSED
    assert breaker.seconds_until_trial() == pytest.approx(0.1)
    clock.advance(0.1)
    assert breaker.acquire() is Permit.TRIAL
    assert breaker.state is BreakerState.HALF_OPEN
    assert breaker.acquire() is Permit.REFUSED  # while the trial is in flight


def test_successful_trial_closes_the_breaker() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(1, 30.0, clock)
    breaker.record_failure()
    clock.advance(30)
    assert breaker.acquire() is Permit.TRIAL
    breaker.record_success()
    assert breaker.state is BreakerState.CLOSED
    assert breaker.acquire() is Permit.GO
    assert breaker.consecutive_failures == 0


def test_failed_trial_reopens_the_breaker_for_a_fresh_reset_period() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(5, 30.0, clock)
    for _ in range(5):
        breaker.record_failure()
    clock.advance(31)
    assert breaker.acquire() is Permit.TRIAL
    assert breaker.record_failure() is True  # one failed trial is enough
    assert breaker.state is BreakerState.OPEN
    clock.advance(29)
    assert breaker.acquire() is Permit.REFUSED
    clock.advance(1)
    assert breaker.acquire() is Permit.TRIAL


def test_cancelled_trial_lets_another_call_try() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(1, 30.0, clock)
    breaker.record_failure()
    clock.advance(30)
    assert breaker.acquire() is Permit.TRIAL
    breaker.release_trial()
    assert breaker.acquire() is Permit.TRIAL


def test_failure_of_a_call_started_before_the_breaker_opened_keeps_its_timer() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(1, 30.0, clock)
    breaker.record_failure()
    clock.advance(20)
    assert breaker.record_failure() is False
    clock.advance(10)
    assert breaker.acquire() is Permit.TRIAL


# --- URL pieces -----------------------------------------------------------------------


def test_query_drops_none_and_spells_booleans_the_upstream_way() -> None:
    params = {"limit": 10, "offset": None, "skip_users": True, "pinned": False, "ids": [1, None, 2]}
    assert encode_query(params) == [
        ("limit", "10"),
        ("skip_users", "true"),
        ("pinned", "false"),
        ("ids", "1"),
        ("ids", "2"),
    ]


def test_query_datetimes_are_iso_8601() -> None:
    assert encode_query({"startDate": NOW}) == [("startDate", "2025-03-01T12:00:00+00:00")]


def test_path_params_are_encoded_as_one_segment() -> None:
    path = build_path("/api/accounts/{account_id}/chats/{chat_id}", {"account_id": 7, "chat_id": "a/../b c"})
    assert path == "/api/accounts/7/chats/a%2F..%2Fb%20c"


def test_missing_path_param_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="chat_id"):
        build_path("/api/accounts/{account_id}/chats/{chat_id}", {"account_id": 7})


def test_account_repr_hides_the_token() -> None:
    assert "sandbox-7" not in repr(UpstreamAccount(7, "sandbox-7"))
