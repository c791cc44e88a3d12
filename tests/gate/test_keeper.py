"""The gatekeeper: a busy key is admitted from what the process holds, and what it holds
never outlives a change.

Requests go through the real app (``probe_client``); the database is read afterwards, once
``settle_ledger`` has written the ledger rows and given back every allowance's rest.
"""

from __future__ import annotations

import asyncio

import pytest

from app.admin.service import disconnect_account, reconnect_account, revoke_key
from app.gate import allowance as allowance_module
from app.gate.keeper import Trust
from app.gate.keys import KeyDigests
from tests.fixtures.api import auth, settle_ledger, usage
from tests.fixtures.net import clear_of_utc_midnight, wait_for

ACCOUNT = 42
PROBE = f"/v1/{ACCOUNT}/probe"


def gatekeeper(client):
    return client.app.state.gate.gatekeeper


def fire(client, key: str, n: int, path: str = PROBE) -> list[int]:
    return [client.get(path, headers=auth(key)).status_code for _ in range(n)]


def wait_for_listener(client, timeout: float = 10.0) -> None:
    """The listener connects in the background at start: until then nothing is held."""
    wait_for(lambda: gatekeeper(client)._trust.live, timeout, "the gate's listener to connect", every=0.02)


def heard(client, change) -> None:
    """Make ``change`` and wait until the process's listener has passed it on: PostgreSQL
    signals the listening backend at commit and returns; that backend then writes the
    notification, so a request sent the instant the change commits can still win the race."""
    before = gatekeeper(client).forgotten
    change()
    wait_for(lambda: gatekeeper(client).forgotten != before, 10, "the change to reach the process", every=0.005)


@pytest.fixture
def org(make_org, connect_account):
    clear_of_utc_midnight()
    org_id = make_org(credits=10_000, limit_minute=100_000, limit_day=100_000)
    connect_account(org_id, ACCOUNT)
    return org_id


@pytest.fixture
def key(make_key, org):
    return make_key(org, "admin", full=True)


def test_a_busy_key_is_admitted_from_its_allowance_and_the_books_still_balance(probe_client, db, org, key):
    wait_for_listener(probe_client)

    statuses = fire(probe_client, key.secret, 200)

    assert statuses == [200] * 200
    keeper = gatekeeper(probe_client)
    assert keeper.admitted_locally > 100  # most requests cost the database nothing
    assert keeper.admitted_locally + keeper.admitted_by_statement == 200
    settle_ledger(probe_client)
    state = usage(db, org)
    assert state.ledger == [(200, 1, True)] * 200
    assert state.day_used == 200 and state.balance == 10_000 - 200


def test_headers_count_down_one_by_one_through_an_allowance(probe_client, org, key):
    wait_for_listener(probe_client)
    remaining = [
        int(probe_client.get(PROBE, headers=auth(key.secret)).headers["x-ratelimit-remaining-day"])
        for _ in range(60)
    ]
    assert remaining == list(range(100_000 - 1, 100_000 - 61, -1))
    assert gatekeeper(probe_client).admitted_locally > 0


def test_revoking_a_held_key_bites_once_the_process_hears_of_it(probe_client, db, org, key):
    wait_for_listener(probe_client)
    assert fire(probe_client, key.secret, 50) == [200] * 50
    assert gatekeeper(probe_client).admitted_locally > 0  # the key is held, with an allowance
    assert len(gatekeeper(probe_client).digests) == 1  # and its digest, not hashed again

    heard(probe_client, lambda: revoke_key(db, key.id))

    assert len(gatekeeper(probe_client).digests) == 0
    assert fire(probe_client, key.secret, 1) == [401]
    assert len(gatekeeper(probe_client).digests) == 0  # a key the database refuses is not kept
    settle_ledger(probe_client)
    state = usage(db, org)
    # the rest of the allowance went back: the counters are the 50 requests that passed
    assert len(state.ledger) == state.day_used == 50 and state.balance == 10_000 - 50


def test_an_account_moved_to_another_organization_is_404_once_the_process_hears_of_it(
    probe_client, db, org, key, make_org
):
    wait_for_listener(probe_client)
    assert fire(probe_client, key.secret, 50) == [200] * 50

    other = make_org()
    heard(probe_client, lambda: db.execute("UPDATE accounts SET organization_id = %s WHERE id = %s", (other, ACCOUNT)))

    assert fire(probe_client, key.secret, 1) == [404]


def test_disconnecting_a_held_account_is_409_once_the_process_hears_of_it_until_it_is_reconnected(
    probe_client, db, org, key, keyring
):
    wait_for_listener(probe_client)
    assert fire(probe_client, key.secret, 50) == [200] * 50
    assert gatekeeper(probe_client).admitted_locally > 0  # the account is held

    heard(probe_client, lambda: disconnect_account(db, ACCOUNT))

    refused = probe_client.get(PROBE, headers=auth(key.secret))
    assert (refused.status_code, refused.json()["code"]) == (409, "account_disconnected")
    assert f"account {ACCOUNT}" in refused.json()["error"] and "reconnect" in refused.json()["error"]
    # held again from the statement's answer: still refused, from the process this time
    before = gatekeeper(probe_client).admitted_locally
    assert fire(probe_client, key.secret, 20) == [409] * 20
    assert gatekeeper(probe_client).admitted_locally > before

    heard(probe_client, lambda: reconnect_account(db, ACCOUNT, None, keyring=keyring))
    assert fire(probe_client, key.secret, 1) == [200]


def test_a_role_that_loses_a_permission_is_403_once_the_process_hears_of_it(probe_client, db, org, key):
    wait_for_listener(probe_client)
    assert fire(probe_client, key.secret, 50) == [200] * 50
    heard(probe_client, lambda: db.execute("DELETE FROM role_permissions WHERE role = 'admin' AND permission = 'api_chats_list'"))
    try:
        assert fire(probe_client, key.secret, 1) == [403]
    finally:
        db.execute("INSERT INTO role_permissions (role, permission) VALUES ('admin', 'api_chats_list')")


def test_without_a_live_listener_every_request_goes_to_the_database(probe_client, db, org, key):
    wait_for_listener(probe_client)
    keeper = gatekeeper(probe_client)
    keeper.trust(Trust())  # nobody listens: nothing may be held

    assert fire(probe_client, key.secret, 50) == [200] * 50

    assert keeper.admitted_locally == 0 and keeper.admitted_by_statement == 50
    settle_ledger(probe_client)
    assert usage(db, org).day_used == 50


def test_a_window_near_its_limit_lets_exactly_its_room_through(probe_client, db, make_org, make_key, connect_account):
    clear_of_utc_midnight()
    org_id = make_org(credits=10_000, limit_minute=100_000, limit_day=120)
    connect_account(org_id, ACCOUNT)
    key = make_key(org_id)
    wait_for_listener(probe_client)

    statuses = fire(probe_client, key, 150)

    assert statuses == [200] * 120 + [429] * 30
    assert gatekeeper(probe_client).admitted_locally > 0  # allowances served part of it
    settle_ledger(probe_client)
    state = usage(db, org_id)
    assert len(state.ledger) == state.day_used == 120 and state.balance == 10_000 - 120


def test_a_spent_balance_is_exact_with_allowances(probe_client, db, make_org, make_key, connect_account):
    org_id = make_org(credits=100)
    connect_account(org_id, ACCOUNT)
    key = make_key(org_id)
    wait_for_listener(probe_client)

    statuses = fire(probe_client, key, 130)

    assert statuses == [200] * 100 + [402] * 30
    settle_ledger(probe_client)
    state = usage(db, org_id)
    assert state.balance == 0 and state.debited == 100 and len(state.ledger) == 130


def test_an_ended_allowance_gives_its_rest_back_by_itself(probe_client, db, org, key):
    wait_for_listener(probe_client)
    assert fire(probe_client, key.secret, 100) == [200] * 100

    # no settle: the writer gives an allowance's rest back within a second of its end
    def settled():
        state = usage(db, org)
        return state if state.day_used == len(state.ledger) >= 100 else None

    state = wait_for(settled, 10, "the day count to match the ledger's 100 rows")
    assert state.day_used == 100 and state.balance == 10_000 - 100


def test_headers_count_down_one_by_one_when_allowances_end_by_time_with_admissions_left(
    probe_client, org, key, monkeypatch
):
    # Leases far shorter than the time between requests: nearly every allowance ends by
    # time with most of it untaken, and the next request goes through the statement before
    # the ledger writer's next write would have given that rest back (what a slow machine
    # does to the one-second lease). Each allowance asks for at least 20, so allowances are
    # reserved however slowly this machine sends the requests.
    monkeypatch.setattr(allowance_module, "LEASE_SECONDS", 0.03)
    wish = allowance_module.Demand.wish
    monkeypatch.setattr(allowance_module.Demand, "wish", lambda self, mono: max(wish(self, mono), 20))
    wait_for_listener(probe_client)
    remaining = [
        int(probe_client.get(PROBE, headers=auth(key.secret)).headers["x-ratelimit-remaining-day"])
        for _ in range(150)
    ]
    assert remaining == list(range(100_000 - 1, 100_000 - 151, -1))
    keeper = gatekeeper(probe_client)
    assert keeper.admitted_locally > 0 and keeper.rests_settled > 0


def test_headers_count_down_one_by_one_when_the_next_allowance_is_late(probe_client, org, key, monkeypatch):
    # Allowances of 20; the next one's reservation is made, but its answer comes back late
    # (a slow round trip): meanwhile the current one runs out. A request then waits for it,
    # rather than being counted by the statement beside a reservation already counted.
    monkeypatch.setattr(allowance_module, "MAX_EXTRA", 20)
    keeper = gatekeeper(probe_client)
    meter = keeper._meter

    async def late_refills(request):
        result = await meter(request)
        if not request.counts:
            await asyncio.sleep(0.3)
        return result

    keeper._meter = late_refills
    wait_for_listener(probe_client)
    remaining = [
        int(probe_client.get(PROBE, headers=auth(key.secret)).headers["x-ratelimit-remaining-day"])
        for _ in range(150)
    ]
    assert remaining == list(range(100_000 - 1, 100_000 - 151, -1))
    assert keeper.admitted_locally > 0 and keeper.refills_awaited > 0


def test_remembered_digests_are_bounded():
    digests = KeyDigests(most=2)
    for i in range(3):
        digests.remember(b"key-%d" % i, b"digest-%d" % i)

    assert len(digests) <= 2
    assert digests.known(b"key-2") == b"digest-2"
    assert digests.known(b"key-9") is None
