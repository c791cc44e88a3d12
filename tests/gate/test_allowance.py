"""Allowances and the demand that sizes them (pure logic)."""

from __future__ import annotations

from datetime import UTC, datetime

from app.gate.allowance import (
    LEASE_SECONDS,
    MIN_LIFE,
    MINUTE_MARGIN,
    TARGET_SECONDS,
    Allowance,
    Demand,
    Unused,
    minute_ending,
)

MINUTE = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
DAY = datetime(2026, 11, 25, tzinfo=UTC)


def allowance(extra: int = 10, *, seconds_into_minute: float = 10.0, mono: float = 100.0) -> Allowance:
    return Allowance(
        organization_id=1, limit_minute=1000, limit_day=50_000, minute_used=5, day_used=7, extra=extra,
        minute_start=MINUTE, day_start=DAY, db_now=MINUTE.timestamp() + seconds_into_minute, mono=mono,
    )


def test_admissions_are_numbered_after_the_counters_and_end_with_the_extra():
    a = allowance(extra=3)
    assert [a.take(100.1) for _ in range(4)] == [True, True, True, False]
    assert a.minute_used + a.taken == 8 and a.day_used + a.taken == 10
    assert a.spent(100.1) and a.unused() is None


def test_an_allowance_ends_after_its_lease_or_before_its_minute_does():
    assert allowance(seconds_into_minute=10).expires == 100.0 + LEASE_SECONDS
    late = allowance(seconds_into_minute=59.5)
    assert late.expires == 100.0 + 0.5 - MINUTE_MARGIN
    assert late.take(late.expires - 0.001) and not late.take(late.expires)


def test_no_allowance_is_asked_for_that_would_end_almost_at_once():
    start = MINUTE.timestamp()
    for into, ending in ((0.0, False), (30.0, False), (59.8, False), (59.9, True), (59.99, True)):
        assert minute_ending(start + into) is ending, into
    # What is asked for just before the line still serves MIN_LIFE before its minute ends.
    assert allowance(seconds_into_minute=59.8).expires - 100.0 >= MIN_LIFE


def test_the_clock_follows_the_database_from_the_grant():
    a = allowance(seconds_into_minute=10, mono=100.0)
    assert a.clock(100.25) == MINUTE.timestamp() + 10.25


def test_what_is_left_goes_back_once():
    a = allowance(extra=10)
    a.take(100.1)
    assert a.unused() == Unused(1, MINUTE, DAY, 9, 9)
    assert a.unused() is None and not a.take(100.2)


def test_the_next_one_is_asked_for_once_a_quarter_is_left():
    a = allowance(extra=8)
    lows = []
    for _ in range(8):
        a.take(100.1)
        lows.append(a.running_low())
    assert lows.index(True) == 5  # 2 of 8 left
    a.refilling = True
    assert not a.running_low()


def test_demand_asks_for_a_target_of_the_recent_rate_and_nothing_when_idle():
    demand = Demand(since=0.0)
    demand.count = 1000  # 1000 requests in one second
    assert demand.wish(1.0) == round(1000 * TARGET_SECONDS)
    assert demand.count == 0 and demand.since == 1.0
    demand.count = 1  # one request in ten seconds: an allowance would go back unused
    assert demand.wish(11.0) == 0


def test_the_next_one_counts_on_from_the_last_admission_of_the_one_it_follows():
    """The next allowance was reserved while the current one served, so its counters hold
    the current one's untaken admissions, which go back when it ends early (its lease ran
    out under load): the headers go on one by one instead of jumping by them."""
    current = allowance(200)
    for _ in range(43):
        assert current.take(100.0)
    following = Allowance(
        organization_id=1, limit_minute=1000, limit_day=50_000, minute_used=5 + 200, day_used=7 + 200,
        extra=100, minute_start=MINUTE, day_start=DAY, db_now=MINUTE.timestamp() + 10.5, mono=100.5,
    )
    following.follow(current)
    assert following.take(100.6)
    assert (following.day_used + following.taken, following.minute_used + following.taken) == (7 + 44, 5 + 44)
    # In a new minute the minute's counter started afresh: only the day's is corrected.
    later = Allowance(
        organization_id=1, limit_minute=1000, limit_day=50_000, minute_used=0, day_used=7 + 200,
        extra=100, minute_start=datetime(2026, 11, 25, 12, 1, tzinfo=UTC), day_start=DAY,
        db_now=MINUTE.timestamp() + 61, mono=151.0,
    )
    later.follow(current)
    assert (later.day_used, later.minute_used) == (7 + 43, 0)
