"""Fair shares per organization (issue 25, item 2; app/gate/shares.py): past its share an
organization gets 429 ``concurrency_limit`` with Retry-After, charged nothing, while another
organization is served; the API's connections carry their statement bounds.

These run the real app in-process; a share held by another request of the same organization
is held here by the test (``app.state.shares``), which is what an export in flight does.
The same bounds under real load, on ``relay serve`` with the sandbox:
tests/store/test_shares_isolation.py.
"""

from __future__ import annotations

import psycopg
import pytest
from litestar.testing import TestClient

from app.asgi import create_app
from app.db.pool import OwnConnection
from app.gate.shares import EXPENSIVE_READS, EXPORTS, LIVE_CALLS, RETRY_AFTER, Shares
from tests.fixtures.api import auth, settle_ledger, usage
from tests.gate.test_our_failures import windows_and_balance

A_ACCOUNT, B_ACCOUNT = 4201, 4202


def test_a_share_is_counted_per_organization_and_given_back():
    shares = Shares({EXPORTS: 2, LIVE_CALLS: 1, EXPENSIVE_READS: 1})
    first, second = shares.take(EXPORTS, 1), shares.take(EXPORTS, 1)
    with pytest.raises(Exception) as refused:
        shares.take(EXPORTS, 1)
    assert (refused.value.status, refused.value.code) == (429, "concurrency_limit")
    assert refused.value.headers == {"Retry-After": str(RETRY_AFTER)}
    assert "2 exports streaming" in refused.value.message
    other = shares.take(EXPORTS, 2)  # another organization: its own share
    with shares.take(LIVE_CALLS, 1):  # another share of the same organization
        assert shares.held(LIVE_CALLS, 1) == 1
    assert shares.held(LIVE_CALLS, 1) == 0
    first.release()
    first.release()  # idempotent: given back once
    assert shares.held(EXPORTS, 1) == 1
    shares.take(EXPORTS, 1).release()
    second.release()
    other.release()
    assert shares._held == {}  # an organization holding nothing has no entry


def _covered(db, account_id: int) -> None:
    """A covered, empty window: an export answers 200 with its header line."""
    db.execute(
        "INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at) "
        "VALUES (%s, 'earnings', to_timestamp(0), now(), now())",
        (account_id,),
    )


@pytest.fixture
def two_orgs(db, make_org, make_key, connect_account):
    org_a, org_b = make_org(credits=10), make_org(credits=10)
    connect_account(org_a, A_ACCOUNT)
    connect_account(org_b, B_ACCOUNT)
    _covered(db, A_ACCOUNT)
    _covered(db, B_ACCOUNT)
    return (org_a, make_key(org_a)), (org_b, make_key(org_b))


def test_past_its_export_share_an_org_gets_429_for_nothing_while_another_is_served(api_settings, db, two_orgs):
    (org_a, key_a), (org_b, key_b) = two_orgs
    settings = api_settings.replace(org_share_exports=1)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        shares = client.app.state.shares
        in_flight = shares.take(EXPORTS, org_a)  # A's one export, still streaming
        refused = client.get(f"/v1/{A_ACCOUNT}/exports/earnings", headers=auth(key_a))
        served = client.get(f"/v1/{B_ACCOUNT}/exports/earnings", headers=auth(key_b))
        assert shares.held(EXPORTS, org_a) == 1 and shares.held(EXPORTS, org_b) == 0  # B's went back
        in_flight.release()
        again = client.get(f"/v1/{A_ACCOUNT}/exports/earnings", headers=auth(key_a))
        settle_ledger(client)

    assert refused.status_code == 429, refused.text
    assert refused.json()["code"] == "concurrency_limit" and "export" in refused.json()["error"]
    assert refused.headers["retry-after"] == str(RETRY_AFTER)
    assert refused.headers["x-credits-used"] == "0"
    assert served.status_code == 200 and served.text.startswith("account_id,"), served.text
    assert again.status_code == 200
    # Like the rate windows' 429, a share's costs nothing: its row says so, and its credit
    # and window slots went back (the 200 afterwards is the one request A paid for).
    assert usage(db, org_a).ledger == [(429, 0, False), (200, 1, True)]
    assert windows_and_balance(db, org_a) == (1, 1, 9)
    assert usage(db, org_b).ledger == [(200, 1, True)]


def test_an_expensive_read_past_its_share_is_refused_before_the_handler(api_settings, db, two_orgs):
    (org_a, key_a), (org_b, key_b) = two_orgs
    settings = api_settings.replace(org_share_expensive_reads=1)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        held = client.app.state.shares.take(EXPENSIVE_READS, org_a)
        refused = client.get(f"/v1/{A_ACCOUNT}/earnings/chart", headers=auth(key_a))
        # Not an expensive read: the feed page is served whatever A's aggregates hold.
        page = client.get(f"/v1/{A_ACCOUNT}/earnings", headers=auth(key_a))
        held.release()
    assert (refused.status_code, refused.json()["code"]) == (429, "concurrency_limit"), refused.text
    assert page.status_code == 200, page.text


def test_a_live_call_past_its_share_is_refused_without_calling_the_upstream(api_settings, two_orgs):
    (org_a, key_a), _ = two_orgs
    settings = api_settings.replace(org_share_live_calls=1)  # its upstream: nobody listens
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        held = client.app.state.shares.take(LIVE_CALLS, org_a)
        refused = client.get(f"/v1/{A_ACCOUNT}/chats", headers=auth(key_a))
        held.release()
        called = client.get(f"/v1/{A_ACCOUNT}/chats", headers=auth(key_a))
        assert client.app.state.shares.held(LIVE_CALLS, org_a) == 0  # a failed call gives it back
    assert (refused.status_code, refused.json()["code"]) == (429, "concurrency_limit"), refused.text
    assert called.status_code == 424  # it did call (and found nobody): the share was free


# --- the API's connections ------------------------------------------------------------------


async def _shown(conn: psycopg.AsyncConnection) -> tuple[str, str]:
    cur = await conn.execute("SHOW statement_timeout")
    (statement,) = await cur.fetchone()
    cur = await conn.execute("SHOW idle_in_transaction_session_timeout")
    (idle,) = await cur.fetchone()
    return statement, idle


def test_api_connections_carry_the_statement_and_idle_transaction_bounds(api_settings, db):
    settings = api_settings.replace(db_statement_timeout=0.3, db_idle_in_transaction_timeout=7)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        pool = client.app.state.pool

        async def pooled():
            async with pool.connection() as conn:
                shown = await _shown(conn)
                try:
                    await conn.execute("SELECT pg_sleep(2)")
                except psycopg.errors.QueryCanceled:
                    return shown, "cancelled"
                return shown, "ran"

        async def own():  # the gate's meter and the ledger writer keep connections of their own
            conn = OwnConnection(pool)
            try:
                return await _shown(await conn.get())
            finally:
                await conn.close()

        assert client.blocking_portal.call(pooled) == (("300ms", "7s"), "cancelled")
        assert client.blocking_portal.call(own) == ("300ms", "7s")
