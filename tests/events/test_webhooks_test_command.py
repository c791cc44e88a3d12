"""``relay webhooks test ID`` sends that endpoint a signed ``webhook.test`` event at once,
through the dispatcher's delivery path (its client, address checks, signing, answer limit),
logs the attempt in the endpoint's delivery log and leaves its queue as it was; it exits 1
with the reason when the event is not delivered. ``relay webhooks list`` prints a table with
a header, or JSON with ``--json``. A real receiver on 127.0.0.1 and the CLI end to end."""

from __future__ import annotations

import json
import re
import socket
import time

import pytest
from standardwebhooks.webhooks import Webhook

from tests.events.receiver import Receiver
from tests.events.test_cli import invoke, ok, refused

ENDPOINT_STATE = "SELECT cursor_tx, cursor_id, attempts, failing_since, next_attempt_at, status FROM webhook_endpoints WHERE id = %s"


@pytest.fixture
def org(db) -> str:
    db.execute("INSERT INTO organizations (name, limit_minute, limit_day) VALUES ('hooks-org', 60, 1000)")
    return "hooks-org"


def add(database_url: str, org: str, url: str, *extra: str) -> tuple[int, str]:
    """A new endpoint's id and signing secret (through the CLI)."""
    added = invoke(database_url, "webhooks", "add", "--org", org, "--url", url, *extra)
    assert added.exit_code == 0, added.output
    (endpoint_id,) = re.findall(r"webhook endpoint (\d+) added", added.stderr)
    return int(endpoint_id), added.stdout.strip()


def deliveries(db, endpoint_id: int) -> list[tuple]:
    return db.execute(
        "SELECT event_id, attempt, status_code, delivered, error IS NOT NULL FROM webhook_deliveries "
        "WHERE endpoint_id = %s ORDER BY id", (endpoint_id,)
    ).fetchall()


def test_a_test_event_arrives_signed_at_once_and_is_logged(db, database_url, org, receiver):
    endpoint_id, secret = add(database_url, org, receiver.url, "--events", "earnings.created")
    before = db.execute(ENDPOINT_STATE, (endpoint_id,)).fetchone()

    started = time.monotonic()
    said = ok(database_url, "webhooks", "test", str(endpoint_id))

    assert time.monotonic() - started < 10
    ((headers, body),) = receiver.accepted()
    event = Webhook(secret).verify(body, headers)  # the signature of the endpoint's secret
    assert event["type"] == "webhook.test" and event["data"]["endpoint_id"] == endpoint_id
    assert event["account_id"] is None and event["cursor"] is None
    assert headers["webhook-id"] == event["id"]
    assert re.fullmatch(
        rf"webhook endpoint {endpoint_id}: webhook.test {event['id']} to {re.escape(receiver.url)} "
        r"delivered: HTTP 204 in \d+ ms", said.strip()
    )
    # Logged (no stored event), and the endpoint's queue untouched.
    assert deliveries(db, endpoint_id) == [(None, 1, 204, True, False)]
    assert db.execute(ENDPOINT_STATE, (endpoint_id,)).fetchone() == before
    assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 0  # not in the feed


def test_a_refused_test_event_exits_1_with_the_status_and_is_logged(db, database_url, org, receiver):
    endpoint_id, _ = add(database_url, org, receiver.url)
    before = db.execute(ENDPOINT_STATE, (endpoint_id,)).fetchone()
    receiver.down = True

    error = refused(database_url, "webhooks", "test", str(endpoint_id))

    assert f"webhook endpoint {endpoint_id}: webhook.test evt_" in error
    assert "not delivered: the receiver answered HTTP 503 (2xx expected)" in error
    assert deliveries(db, endpoint_id) == [(None, 1, 503, False, False)]
    assert db.execute(ENDPOINT_STATE, (endpoint_id,)).fetchone() == before  # no retry, no disabling


def test_an_unreachable_receiver_exits_1_with_the_connection_error(db, database_url, org):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint_id, _ = add(database_url, org, f"http://127.0.0.1:{port}/hook")

    error = refused(database_url, "webhooks", "test", str(endpoint_id))

    assert "not delivered: ConnectError" in error
    assert deliveries(db, endpoint_id) == [(None, 1, None, False, True)]


def test_a_private_address_is_refused_unless_allowed(db, database_url, org, receiver):
    endpoint_id, _ = add(database_url, org, receiver.url)

    error = refused(database_url, "webhooks", "test", str(endpoint_id), env={})

    assert "not delivered: RefusedAddress" in error and "127.0.0.1" in error
    assert receiver.requests == []


def test_a_disabled_endpoint_can_be_tested_and_an_unknown_one_is_refused(db, database_url, org, receiver):
    endpoint_id, _ = add(database_url, org, receiver.url)
    ok(database_url, "webhooks", "disable", str(endpoint_id))

    tested = invoke(database_url, "webhooks", "test", str(endpoint_id))

    assert tested.exit_code == 0 and "delivered: HTTP 204" in tested.stdout
    assert "the endpoint is disabled" in tested.stderr and len(receiver.accepted()) == 1
    assert "no webhook endpoint 999999" in refused(database_url, "webhooks", "test", "999999")


def test_the_listing_has_a_header_and_json(db, database_url, org, receiver):
    first, secret = add(database_url, org, receiver.url, "--events", "earnings.created,posts.created")
    other = Receiver()
    try:
        second, _ = add(database_url, org, other.url)
    finally:
        other.close()
    ok(database_url, "webhooks", "disable", str(second), "--reason", "moving")
    ok(database_url, "webhooks", "test", str(first))

    lines = ok(database_url, "webhooks", "list").splitlines()
    listed = json.loads(ok(database_url, "webhooks", "list", "--json"))

    assert re.split(r"\s{2,}", lines[0]) == ["id", "organization", "url", "events", "status", "failing_since",
                                            "last_delivered_at"]
    rows = [re.split(r"\s{2,}", line) for line in lines[1:]]
    assert [r[:5] for r in rows] == [
        [str(first), org, receiver.url, "earnings.created,posts.created", "active"],
        [str(second), org, other.url, "all", "disabled (moving)"],
    ]
    assert [(e["id"], e["url"], e["event_types"], e["status"], e["disabled_reason"]) for e in listed] == [
        (first, receiver.url, ["earnings.created", "posts.created"], "active", None),
        (second, other.url, None, "disabled", "moving"),
    ]
    assert listed[0]["last_delivered_at"] is not None and listed[1]["last_delivered_at"] is None
    assert secret not in json.dumps(listed) and all("secret" not in e for e in listed)
    assert json.loads(ok(database_url, "webhooks", "list", "--org", "nobody", "--json")) == []
