"""Exact metering under concurrency, across two real API processes.

Two ``relay serve`` processes share the test database; many clients fire at once, half at
each process. Against a remaining allowance L, exactly min(N, L) requests pass, and the
window counters, the balance and the ledger agree to the unit afterwards.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.fixtures.api import auth
from tests.fixtures.net import clear_of_utc_midnight, wait_for

pytestmark = pytest.mark.slow

REQUESTS = 120
ALLOWED = 45
ROUTE = "/v1/{account}/vault/media/processing"  # a live route: one upstream call each


async def _fire(urls: list[str], key: str) -> list[int]:
    limits = httpx.Limits(max_connections=REQUESTS)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        responses = await asyncio.gather(
            *(client.get(urls[i % len(urls)], headers=auth(key)) for i in range(REQUESTS))
        )
    return [r.status_code for r in responses]


def _wait_for_ledger(db, org_id: int) -> None:
    """Each process writes its ledger rows shortly after its responses (25 ms), and gives
    back what is left of its allowances when they end (1 s): wait until the counters and
    the balance agree with the ledger."""

    def agree() -> bool:
        state = _metering(db, org_id)
        return state["day_used"] == state["ledger"] and state["balance"] == state["granted"] - state["debited"]

    wait_for(agree, 15, "the counters and the balance to agree with the ledger", every=0.05)


def _metering(db, org_id: int) -> dict:
    row = db.execute(
        """
        SELECT o.credit_balance, o.minute_used, o.day_used,
               (SELECT coalesce(sum(amount), 0) FROM credit_grants g WHERE g.organization_id = o.id),
               count(l.id), count(l.id) FILTER (WHERE l.debited), coalesce(sum(l.credits), 0),
               count(DISTINCT date_trunc('minute', l.created_at))
        FROM organizations o LEFT JOIN usage_ledger l ON l.organization_id = o.id
        WHERE o.id = %s GROUP BY o.id
        """,
        (org_id,),
    ).fetchone()
    keys = ("balance", "minute_used", "day_used", "granted", "ledger", "debited", "credits", "minutes")
    return dict(zip(keys, row, strict=True))


@pytest.fixture
def two_api_processes(api_process, sandbox):
    # Every request at once, all live calls of one organization: past its share (16 per
    # process) they would be 429 concurrency_limit (tests/gate/test_shares.py), not metered.
    env = {"RELAY_UPSTREAM_URL": sandbox.url, "RELAY_DB_POOL_MAX": "10", "RELAY_ORG_SHARE_LIVE_CALLS": str(REQUESTS)}
    return [api_process(**env), api_process(**env)]


async def test_rate_window_lets_exactly_the_allowance_through_across_processes(
    db, two_api_processes, make_org, make_key, connect_account
):
    clear_of_utc_midnight()
    org_id = make_org(credits=1000, limit_minute=100000, limit_day=ALLOWED)
    connect_account(org_id, 101)
    urls = [api.url + ROUTE.format(account=101) for api in two_api_processes]

    statuses = await _fire(urls, make_key(org_id))

    assert statuses.count(429) == REQUESTS - ALLOWED
    assert statuses.count(200) == ALLOWED, sorted(set(statuses))
    _wait_for_ledger(db, org_id)
    state = _metering(db, org_id)
    assert state["day_used"] == state["ledger"] == state["debited"] == state["credits"] == ALLOWED
    if state["minutes"] == 1:  # the minute counter covers the whole ledger when no minute turned
        assert state["minute_used"] == ALLOWED
    assert state["balance"] == state["granted"] - state["debited"] == 1000 - ALLOWED
    statuses_in_ledger = db.execute(
        "SELECT status, count(*) FROM usage_ledger WHERE organization_id = %s GROUP BY status", (org_id,)
    ).fetchall()
    assert statuses_in_ledger == [(200, ALLOWED)]


async def test_credit_balance_is_spent_exactly_once_per_request_across_processes(
    db, two_api_processes, make_org, make_key, connect_account
):
    org_id = make_org(credits=ALLOWED)
    connect_account(org_id, 102)
    urls = [api.url + ROUTE.format(account=102) for api in two_api_processes]

    statuses = await _fire(urls, make_key(org_id))

    assert statuses.count(200) == ALLOWED
    assert statuses.count(402) == REQUESTS - ALLOWED
    _wait_for_ledger(db, org_id)
    state = _metering(db, org_id)
    assert state["ledger"] == state["credits"] == state["day_used"] == REQUESTS
    assert state["debited"] == ALLOWED
    assert state["balance"] == 0 == state["granted"] - state["debited"]
    by_status = dict(
        db.execute(
            "SELECT status, count(*) FILTER (WHERE debited) FROM usage_ledger "
            "WHERE organization_id = %s GROUP BY status",
            (org_id,),
        ).fetchall()
    )
    assert by_status == {200: ALLOWED, 402: 0}
