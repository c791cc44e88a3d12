"""GET /v1/events: an organization's own events only, filtered by type, refused cleanly on
bad input or without the permission, and never handing out an event behind a transaction
still running (which could commit later with a lower id and be stepped over)."""

from __future__ import annotations

import psycopg
import pytest

from tests.events.helpers import feed_page, read_feed, wait_for_horizon
from tests.fixtures.api import auth


def _event(conn, org_id: int, type_: str, n: int) -> str:
    (event_id,) = conn.execute(
        "INSERT INTO events (type, organization_id, account_id, payload) VALUES (%s, %s, NULL, %s) "
        "RETURNING 'evt_' || replace(event_id::text, '-', '')",
        (type_, org_id, psycopg.types.json.Jsonb({"n": n})),
    ).fetchone()
    return event_id


@pytest.fixture
def two_orgs(db, database_url, make_org, make_key):
    """Two organizations with interleaved events: {org id: (reader key, its event ids)}."""
    orgs = {make_org(): [] for _ in range(2)}
    types = ("earnings.created", "posts.created", "earnings.updated")
    for n in range(30):
        for org_id, ids in orgs.items():
            ids.append((_event(db, org_id, types[n % 3], n), types[n % 3]))
    wait_for_horizon(database_url)
    return {org_id: (make_key(org_id, "reader"), ids) for org_id, ids in orgs.items()}


def test_the_feed_lists_the_organizations_own_events_filtered_by_type(api_client, two_orgs, make_key):
    for org_id, (key, events) in two_orgs.items():
        assert read_feed(api_client, key, limit=7)[0] == [i for i, _ in events]
        answer = api_client.get("/v1/events", params={"type": "posts.created,earnings.updated", "limit": 1000},
                                headers=auth(key))
        assert [e["id"] for e in answer.json()["data"]["list"]] == [i for i, t in events if t != "earnings.created"]
        assert {e["organization_id"] for e in answer.json()["data"]["list"]} == {org_id}

    key = next(iter(two_orgs.values()))[0]
    for params, message in (({"after": "12"}, "after"), ({"type": "earnings.deleted"}, "unknown event type 'earnings.deleted'"),
                            ({"limit": 0}, "limit")):
        answer = api_client.get("/v1/events", params=params, headers=auth(key))
        assert answer.status_code == 400 and message in answer.json()["error"], answer.text
    analytics = make_key(next(iter(two_orgs)), "analytics")
    assert api_client.get("/v1/events", headers=auth(analytics)).status_code == 403


def test_an_event_behind_a_running_transaction_is_not_stepped_over(database_url, api_client, make_org, make_key):
    org_id = make_org()
    key = make_key(org_id, "reader")
    with psycopg.connect(database_url) as slow, psycopg.connect(database_url, autocommit=True) as fast:
        late = _event(slow, org_id, "earnings.created", 1)  # its transaction stays open
        early = _event(fast, org_id, "earnings.created", 2)  # commits first, with a higher id
        page = feed_page(api_client, key, None, 100)
        assert page["list"] == []  # not handed out before the older transaction ends
        slow.commit()
    wait_for_horizon(database_url)
    ids, _ = read_feed(api_client, key, page["cursor"])
    assert ids == [late, early]  # transaction order: the late commit is not lost behind a cursor
