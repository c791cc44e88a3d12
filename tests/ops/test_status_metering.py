"""GET /status is metered: each view counts in its organization's minute window (no credit,
no day window, a ledger row with credits 0), a full window answers 429 with Retry-After, and
its database work is bounded: the page's data is read at most once per organization and
``RELAY_STATUS_CACHE_SECONDS``.

The real app in-process (``TestClient``) on the test database, with the probe routes of
``tests/gate/probe.py`` to fill the window through the gate.
"""

from __future__ import annotations

from litestar.testing import TestClient

from tests.fixtures.api import auth, settle_ledger, usage, windows_and_balance
from tests.fixtures.net import clear_of_minute_turn, wait_for

GATED = "/v1/probe/global"


def reads(client: TestClient) -> int:
    return client.app.state.status_reads.reads


def test_a_status_view_counts_in_the_minute_window_for_no_credit(client_of, db, make_org, make_key):
    client = client_of()
    org = make_org(credits=10, limit_minute=5)

    page = client.get("/status", headers=auth(make_key(org)))

    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    settle_ledger(client)
    assert usage(db, org).ledger == [(200, 0, False)]
    assert db.execute("SELECT method, route FROM usage_ledger").fetchall() == [("GET", "/status")]
    assert windows_and_balance(db, org)[:3] in {(1, 0, 10), (0, 0, 10)}  # (0: the minute turned)


def test_status_views_fill_the_window_the_api_shares(client_of, db, make_org, make_key):
    client = client_of()
    clear_of_minute_turn()
    org = make_org(credits=10, limit_minute=2)
    key = make_key(org)
    assert [client.get("/status", headers=auth(key)).status_code for _ in range(2)] == [200, 200]

    refused = client.get(GATED, headers=auth(key))

    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"


def test_status_within_a_full_minute_window_answers_429_with_retry_after_and_reads_nothing(
    client_of, db, make_org, make_key
):
    client = client_of()
    org = make_org(credits=10, limit_minute=2)
    key = make_key(org)
    clear_of_minute_turn()
    assert [client.get(GATED, headers=auth(key)).status_code for _ in range(2)] == [200, 200]

    views = [client.get("/status", headers=auth(key)) for _ in range(40)]

    assert {view.status_code for view in views} == {429}
    assert views[0].json() == {
        "error": "rate limit exceeded for this organization; retry after the window resets",
        "code": "rate_limited",
    }
    assert all(1 <= int(view.headers["retry-after"]) <= 60 for view in views)
    assert reads(client) == 0  # no sync rows, no earnings: only the key and the window
    settle_ledger(client)
    assert usage(db, org).ledger == [(200, 1, True)] * 2  # the refused views leave no row
    assert windows_and_balance(db, org)[2] == 8


def test_a_status_view_of_a_non_admin_key_is_counted_and_refused(client_of, db, make_org, make_key):
    client = client_of()
    org = make_org(credits=10, limit_minute=5)

    refused = client.get("/status", headers=auth(make_key(org, "reader")))

    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    settle_ledger(client)
    assert usage(db, org).ledger == [(403, 0, False)]
    assert reads(client) == 0


def test_status_reads_an_organizations_data_once_per_cache_time(client_of, db, make_org, make_key):
    client = client_of(status_cache_seconds=3600)
    first, second = make_org(limit_minute=100), make_org(limit_minute=100)
    first_key, second_key = make_key(first), make_key(second)

    answers = [client.get("/status", headers=auth(first_key)).status_code for _ in range(20)]
    answers.append(client.get("/status", headers=auth(second_key)).status_code)

    assert answers == [200] * 21
    assert reads(client) == 2  # one per organization, whatever the number of views


def test_a_status_view_after_the_cache_time_shows_fresh_data(client_of, db, make_org, make_key, connect_account):
    client = client_of(status_cache_seconds=0.2)
    org = make_org(limit_minute=100)
    key = make_key(org)
    connect_account(org, 730_001)
    db.execute("INSERT INTO sync_tasks (account_id, resource) VALUES (730001, 'earnings') ON CONFLICT DO NOTHING")
    db.execute("UPDATE accounts SET label = 'before' WHERE id = 730001")
    assert "before" in client.get("/status", headers=auth(key)).text

    db.execute("UPDATE accounts SET label = 'after' WHERE id = 730001")
    wait_for(lambda: "after" in client.get("/status", headers=auth(key)).text, 10, "the new label on /status", every=0.05)
    assert reads(client) >= 2
