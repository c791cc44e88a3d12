"""A request's failure never fails another: input at the edge of its type (an account id
past PostgreSQL's bigint) is refused for its own request only, while concurrent requests of
other organizations, metered in the same batches, succeed."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import uvicorn

from tests.fixtures.api import auth, usage
from tests.fixtures.net import free_port, wait_for_async
from tests.gate.probe import probe_app

POISON_IDS = ["99999999999999999999", str(2**63), "0"]
UNKNOWN_KEY = "crk_live_" + "Z" * 43


@pytest.fixture
async def probe_server(api_settings, db):
    """The probe app served over real HTTP in this event loop (concurrent requests)."""
    app = probe_app(api_settings)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on"))
    task = asyncio.create_task(server.serve())

    def started() -> bool:
        if task.done():
            task.result()  # it ended: its error fails the test
        return server.started

    await wait_for_async(started, 30, "the probe server to start", every=0.01)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        yield app, client
    server.should_exit = True
    await task


async def test_poison_account_ids_fail_alone_while_other_organizations_are_served(
    probe_server, db, make_org, make_key, connect_account
):
    honest, attacker = make_org(credits=100), make_org(credits=100)
    connect_account(honest, 42)
    honest_key, attacker_key = make_key(honest), make_key(attacker)
    app, client = probe_server

    async def poison(i: int):
        key = attacker_key if i % 2 == 0 else UNKNOWN_KEY
        return await client.get(f"/v1/{POISON_IDS[i % len(POISON_IDS)]}/probe", headers=auth(key))

    honest_calls = [client.get("/v1/42/probe", headers=auth(honest_key)) for _ in range(24)]
    poison_calls = [poison(i) for i in range(24)]
    responses = await asyncio.gather(*(c for pair in zip(honest_calls, poison_calls, strict=True) for c in pair))
    honest_answers, poison_answers = responses[0::2], responses[1::2]

    assert [r.status_code for r in honest_answers] == [200] * 24
    assert all(r.json()["data"] == {"account": 42} for r in honest_answers)
    for i, response in enumerate(poison_answers):
        if i % 2 == 0:
            assert response.status_code == 404, response.text
            assert response.json()["code"] == "account_not_found"
            assert POISON_IDS[i % len(POISON_IDS)] in response.json()["error"]
        else:
            assert response.status_code == 401, response.text
    meter = app.state.meter
    assert meter.statements < meter.metered  # they did share batches
    await app.state.gate.ledger.flush(everything=True)  # the ledger rows, and any allowance's rest
    assert usage(db, honest).balance == 76
    # the attacker's refused requests are counted (1 credit each, like any 404), with no account
    rows = db.execute(
        "SELECT account_id, status FROM usage_ledger WHERE organization_id = %s", (attacker,)
    ).fetchall()
    assert rows == [(None, 404)] * 12
