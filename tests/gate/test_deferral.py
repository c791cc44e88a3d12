"""Two processes share an organization's balance while one of them holds an allowance.

Each ``Process`` is what an API process runs of the gate (its meter, gatekeeper, change
listener and ledger writer, on its own pool) over the test database. Process A reserves an
allowance and leaves part of it unused; process B asks for more than the database has left.
B's requests that do not fit are deferred until A's allowance is surely back, so exactly
the balance is spent between them: none of it is lost to a 402 answered too early.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from psycopg_pool import AsyncConnectionPool

from app.gate.allowance import hold_seconds
from app.gate.keeper import Gatekeeper
from app.gate.keys import key_digest
from app.gate.ledger import LedgerWriter
from app.gate.listener import ChangeListener
from app.gate.meter import Meter
from app.gate.statement import GateResult, MeterRequest
from tests.fixtures.net import clear_of_minute_turn

ACCOUNT = 42
ROUTE = "/v1/{account_id:int}/probe"
PERMISSION = "api_chats_list"
INTERVAL = 0.1  # the ledger writer's: it gives an ended allowance's rest back


class Process:
    def __init__(self, url: str, max_deferred: int = 64) -> None:
        self.pool = AsyncConnectionPool(url, min_size=1, max_size=4, open=False)
        self.meter = Meter(self.pool)
        self.keeper = Gatekeeper(self.meter, hold=hold_seconds(INTERVAL), max_deferred=max_deferred)
        self.listener = ChangeListener(url, self.keeper.forget)
        self.ledger = LedgerWriter(self.pool, self.keeper.unused, interval=INTERVAL)

    async def __aenter__(self) -> Process:
        await self.pool.open()
        self.keeper.trust(self.listener)
        self.listener.start()
        self.ledger.start()
        deadline = time.monotonic() + 10
        while not self.listener.live:  # nothing is held until the listener hears
            assert time.monotonic() < deadline, "the change listener did not connect"
            await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.listener.close()
        await self.keeper.close()
        await self.ledger.close()  # what is left of every allowance goes back
        await self.meter.close()
        await self.pool.close()

    async def gate(self, key: str) -> GateResult:
        """One request through the gate, as the middleware sends it."""
        digest = key_digest(key)
        held = self.keeper.admit_here(digest, PERMISSION, ACCOUNT)
        if held is not None:
            return held
        return await self.keeper.admit(MeterRequest.of(digest, PERMISSION, ACCOUNT, "GET", ROUTE))


@pytest.fixture
def funded(make_org, make_key, connect_account) -> tuple[int, str]:
    """An organization with 40 credits, its account and a key: (organization id, key).
    The test starts clear of a minute's turn: an allowance ends with its minute, and the
    tests need A's to serve for its whole second."""
    clear_of_minute_turn(5.0)
    org = make_org(credits=40)
    connect_account(org, ACCOUNT)
    return org, make_key(org)


def books(db, org: int) -> tuple[int, int]:
    """(credit balance, requests counted in the day) of ``org``."""
    return db.execute("SELECT credit_balance, day_used FROM organizations WHERE id = %s", (org,)).fetchone()


async def test_a_balance_is_spent_exactly_while_another_process_holds_part_of_it(
    database_url, db, funded
):
    org, key = funded
    async with Process(database_url) as a, Process(database_url) as b:
        # Two requests in a row: A's second reserves an allowance (4: an eighth of the 38
        # left), and A's third is admitted from it; 3 of it stay unused.
        in_a = [await a.gate(key) for _ in range(3)]
        assert a.keeper.admitted_locally == 1

        started = time.monotonic()
        in_b = await asyncio.gather(*(b.gate(key) for _ in range(45)))
        waited = time.monotonic() - started

    paid = [r.debited for r in in_a + in_b]
    assert all(r.counted for r in in_a + in_b)  # no window is full: each is counted once
    assert paid.count(True) == 40  # A's unused 3 came back and went to B's deferred requests
    assert sum(r.debited for r in in_b) == 37
    assert waited >= 1.0  # the deferred ones waited for A's allowance to end
    assert books(db, org) == (0, 48)


async def test_a_deferred_request_takes_its_own_process_allowance_at_once(
    database_url, db, funded
):
    org, key = funded
    async with Process(database_url) as a, Process(database_url) as b:
        [await a.gate(key) for _ in range(3)]  # A holds 3 of a 4-admission allowance
        assert all(r.debited for r in await asyncio.gather(*(b.gate(key) for _ in range(34))))
        # A request of A that reaches the statement (as one sent while A's allowance was on
        # its way would) finds nothing left there, and A's own allowance out.
        started = time.monotonic()
        late = await a.keeper.admit(MeterRequest.of(key_digest(key), PERMISSION, ACCOUNT, "GET", ROUTE))
        waited = time.monotonic() - started

    assert late.counted and late.debited and a.keeper.admitted_locally == 2
    assert waited < 0.5  # no wait for the reservation to end
    assert books(db, org) == (2, 38)  # A's last 2 came back at its end


async def test_no_more_requests_wait_than_the_share_nor_than_may_come_back(database_url, db, funded):
    org, key = funded
    async with Process(database_url) as a, Process(database_url, max_deferred=2) as b:
        [await a.gate(key) for _ in range(3)]  # 4 reserved for A, 3 of them unused
        in_b = await asyncio.gather(*(b.gate(key) for _ in range(45)))
        assert not b.keeper._waiting  # nobody is left counted as waiting

    # 34 fit at once; of the 11 deferred only 2 (the share) waited, and took 2 of A's 3;
    # the other 9 were answered 402 at once.
    assert sum(r.debited for r in in_b) == 36
    assert books(db, org) == (1, 48)
