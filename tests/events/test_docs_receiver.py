"""The receiver example of docs/events.md, run as written against real deliveries: it
handles each event once, in order, and refuses a delivery signed with another secret."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import HTTPServer
from pathlib import Path

import httpx
import pytest

from app.events.webhooks.endpoints import redeliver
from app.events.webhooks.signing import headers, new_secret
from tests.events.helpers import DAY, add_endpoint, deliver_until_idle, events_of, initial_sync, next_incremental

pytestmark = pytest.mark.slow

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"


def docs_example() -> dict:
    """The names the example defines (run as a module, not as the main program)."""
    text = DOC.read_text()
    section = text[text.index("### A receiver that verifies signatures"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)[1]
    namespace = {"__name__": "docs_receiver"}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation's code
    return namespace


@pytest.fixture
def served():
    """Start the example's handler on a free port: (url, handled events)."""
    servers = []

    def start(secret: str) -> tuple[str, list[dict]]:
        handled: list[dict] = []
        server = HTTPServer(("127.0.0.1", 0), docs_example()["receiver"](secret, handled.append))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/hook", handled

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_the_documented_receiver_verifies_real_deliveries_and_handles_each_event_once(
    db, database_url, sandbox, sync_settings, new_account, served
):
    account_id = new_account(earnings=3000, history_days=120)
    initial_sync(sync_settings, account_id)
    (org_id,) = db.execute("SELECT organization_id FROM accounts WHERE id = %s", (account_id,)).fetchone()
    endpoint_id, secret = add_endpoint(db, str(org_id), "http://127.0.0.1/", None)
    url, handled = served(secret)  # the example, started with the printed secret
    db.execute("UPDATE webhook_endpoints SET url = %s WHERE id = %s", (url, endpoint_id))

    sandbox.advance(DAY)
    next_incremental(db, sync_settings, account_id)
    everything = [(f"evt_{e.hex}", t) for e, t, _ in events_of(db, account_id)]
    (older,) = [i for i, t in everything if t == "sync.backfill_completed"]  # before the endpoint
    expected = [i for i, t in everything if i != older]
    deliver_until_idle(sync_settings, database_url)
    assert [e["id"] for e in handled] == expected and expected

    # Everything of the last hour again (at least once): the repeats are answered, not
    # handled twice; only the event older than the endpoint is new to the receiver.
    assert redeliver(db, endpoint_id, db.execute("SELECT now() - interval '1 hour'").fetchone()[0]) == len(everything)
    deliver_until_idle(sync_settings, database_url)
    assert [e["id"] for e in handled] == expected + [older]
    assert db.execute(
        "SELECT count(*) FILTER (WHERE n = 2), count(*) FROM (SELECT count(*) AS n FROM webhook_deliveries "
        "WHERE endpoint_id = %s AND delivered GROUP BY event_id) d",
        (endpoint_id,),
    ).fetchone() == (len(expected), len(everything))

    # A forged delivery (another secret) or a replayed old one is refused.
    body = json.dumps({"id": "evt_forged", "type": "earnings.created", "data": {}}).encode()
    forged = httpx.post(url, content=body, headers=headers(new_secret(), "evt_forged", int(time.time()), body))
    replayed = httpx.post(url, content=body, headers=headers(secret, "evt_forged", int(time.time()) - 3600, body))
    assert (forged.status_code, replayed.status_code) == (400, 400)
    assert len(handled) == len(everything)
