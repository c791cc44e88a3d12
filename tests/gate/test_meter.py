"""The batched gate statement: many requests in one statement, each answered as if alone.

``Meter`` coalesces the concurrent requests of one process into one execution of the gate
statement. These tests drive it directly against the database (no HTTP) so that the
batches are known: admission in arrival order per organization, credits per request,
verdicts and unknown keys mixed in one batch, the allowance reserved beside them -- and,
under real concurrency, exactly min(N, L) counted with fewer statements than requests.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from datetime import timedelta

import pytest
from psycopg_pool import AsyncConnectionPool

from app.gate.keys import key_digest
from app.gate.meter import Meter
from app.gate.statement import GATE_SQL, RESULT_COLUMNS, MeterRequest, _gate_params, run_gate_statement
from app.permissions import PERMISSIONS

ROUTE = "/v1/{account_id:int}/probe"
ALLOWED = "api_chats_list"  # granted to admin, not to analytics
assert ALLOWED in PERMISSIONS


def request(key: str, account: int | None = 42, permission: str = ALLOWED, wish: int = 0) -> MeterRequest:
    return replace(MeterRequest.of(key_digest(key), permission, account, "GET", ROUTE), wish=wish)


@pytest.fixture
async def pool(database_url, db):
    async with AsyncConnectionPool(database_url, min_size=1, max_size=4, open=False) as pool:
        yield pool


async def _one_statement(pool: AsyncConnectionPool, requests: list[MeterRequest]):
    async with pool.connection() as conn:
        await conn.set_autocommit(True)
        return await run_gate_statement(conn, requests)


async def test_the_statements_columns_are_the_result_fields_in_order(pool, db):
    # run_gate_statement builds GateResult by position: a column moved in the SQL would
    # silently land in the wrong field.
    async with pool.connection() as conn:
        cursor = await conn.execute(GATE_SQL, _gate_params([request("unknown-key")]))
        assert tuple(column.name for column in cursor.description) == RESULT_COLUMNS


async def test_one_statement_admits_the_first_requests_of_each_organization_that_fit(
    pool, db, make_org, make_key, connect_account
):
    tight = make_org(credits=2, limit_minute=3)
    roomy = make_org(credits=100)
    connect_account(tight, 42)
    connect_account(roomy, 43)
    a, b = make_key(tight), make_key(roomy)

    results = await _one_statement(pool, [request(a), request(b, 43), request(a), request(a), request(a)])

    # tight: 3 fit the minute window, the 4th is a 429; 2 credits for 3 requests
    assert [r.counted for r in results] == [True, True, True, True, False]
    assert [r.debited for r in results] == [True, True, True, False, False]
    assert [r.minute_used for r in results] == [1, 1, 2, 3, 3]
    assert results[4].rate_limits().remaining_minute == 0
    assert [r.organization_id for r in results] == [tight, roomy, tight, tight, tight]
    balance, minute_used, day_used = db.execute(
        "SELECT credit_balance, minute_used, day_used FROM organizations WHERE id = %s", (tight,)
    ).fetchone()
    assert (balance, minute_used, day_used) == (0, 3, 3)
    # ledger rows are written after the responses (app.gate.ledger), not by the statement
    assert db.execute("SELECT count(*) FROM usage_ledger").fetchone() == (0,)


async def test_one_statement_mixes_unknown_keys_verdicts_and_routes_without_account(
    pool, db, make_org, make_key, connect_account, keyring
):
    org = make_org(credits=10)
    other = make_org()
    connect_account(org, 42)
    connect_account(other, 777)
    admin, analytics = make_key(org), make_key(org, "analytics")
    unknown = "crk_live_" + "Z" * 43

    results = await _one_statement(
        pool,
        [request(unknown), request(analytics), request(admin, 777), request(admin, None), request(admin)],
    )

    assert not results[0].authenticated and not results[0].counted and results[0].credits_used == 0
    assert results[0].organization_id is None and results[0].permissions is None
    assert [r.verdict for r in results[1:]] == [403, 404, None, None]
    assert [r.counted for r in results[1:]] == [True] * 4
    assert [r.owned for r in results[1:]] == [True, False, False, True]
    assert results[2].upstream_token is None  # never another organization's credential
    assert keyring.decrypt(results[4].upstream_token) == "sandbox-42"  # stored encrypted
    assert results[1].key_hash == hashlib.sha256(analytics.encode()).digest()
    # what the process keeps of the key: its organization and its role's permissions
    assert ALLOWED not in results[1].permissions and ALLOWED in results[4].permissions
    assert {r.organization_id for r in results[1:]} == {org}
    assert db.execute(
        "SELECT minute_used, day_used, credit_balance FROM organizations WHERE id = %s", (other,)
    ).fetchone() == (0, 0, 1000)


async def test_revoked_key_fails_in_the_next_batch(pool, db, make_org, make_key, connect_account):
    org = make_org()
    connect_account(org, 42)
    created = make_key(org, full=True)
    assert (await _one_statement(pool, [request(created.secret)]))[0].counted
    db.execute("UPDATE api_keys SET revoked_at = now() WHERE id = %s", (created.id,))
    (result,) = await _one_statement(pool, [request(created.secret)])
    assert not result.authenticated and not result.counted


async def test_concurrent_requests_share_statements_and_exactly_the_allowance_passes(
    pool, db, make_org, make_key, connect_account
):
    org = make_org(credits=30, limit_minute=100000, limit_day=40)
    connect_account(org, 42)
    key = make_key(org)
    meter = Meter(pool)
    try:
        results = await asyncio.gather(*(meter(request(key)) for _ in range(100)))
    finally:
        await meter.close()

    counted = [r for r in results if r.counted]
    assert len(counted) == 40
    assert sum(r.debited for r in results) == 30
    assert sorted(r.day_used for r in counted) == list(range(1, 41))
    assert meter.metered == 100 and meter.statements < 100
    balance, day_used = db.execute(
        "SELECT credit_balance, day_used FROM organizations WHERE id = %s", (org,)
    ).fetchone()
    assert (balance, day_used) == (0, 40)


async def test_an_account_id_past_bigint_is_an_unknown_account_and_fails_nothing(
    pool, db, make_org, make_key, connect_account
):
    org = make_org(credits=10)
    connect_account(org, 42)
    key = make_key(org)

    results = await _one_statement(pool, [request(key), request(key, 2**64), request(key, -1)])

    assert [r.verdict for r in results] == [None, 404, 404]
    assert all(r.counted for r in results)
    assert usage_of(db, org) == (3, 7)


async def test_a_failing_batch_is_retried_request_by_request_so_only_the_culprit_fails(
    pool, db, make_org, make_key, connect_account, keyring
):
    one, two = make_org(credits=10), make_org(credits=10)
    connect_account(one, 42)
    connect_account(two, 43)
    a, b = make_key(one), make_key(two)
    # Built by hand past MeterRequest.of's bounds: the statement itself fails on it.
    poison = MeterRequest(key_digest(a), ALLOWED, 2**63 + 1, "GET", ROUTE, account_named=True)
    meter = Meter(pool)
    try:
        results = await asyncio.gather(
            meter(request(b, 43)), meter(poison), meter(request(a)), return_exceptions=True
        )
        assert (await meter(request(b, 43))).counted  # the meter goes on
    finally:
        await meter.close()

    assert isinstance(results[1], Exception)
    assert results[0].counted and results[2].counted
    assert [keyring.decrypt(results[i].upstream_token) for i in (0, 2)] == ["sandbox-43", "sandbox-42"]
    # the failed batch rolled back whole: each survivor is counted exactly once
    assert (usage_of(db, one), usage_of(db, two)) == ((1, 9), (2, 8))
    assert meter.metered == 3


def usage_of(db, org: int) -> tuple[int, int]:
    """(requests counted in the day window, credit balance) of ``org``."""
    return db.execute("SELECT day_used, credit_balance FROM organizations WHERE id = %s", (org,)).fetchone()


# --- the allowance ---------------------------------------------------------------------------


async def test_an_allowance_is_reserved_on_the_organizations_last_row_after_its_requests(
    pool, db, make_org, make_key, connect_account
):
    org = make_org(credits=10_000, limit_minute=1000, limit_day=100_000)
    connect_account(org, 42)
    key = make_key(org)

    results = await _one_statement(pool, [request(key, wish=50), request(key, wish=50), request(key, wish=50)])

    assert [r.extra for r in results] == [0, 0, 50]
    assert [r.minute_used for r in results] == [1, 2, 3]  # the allowance starts after them
    assert usage_of(db, org) == (53, 10_000 - 53)  # counted and paid for when reserved
    assert results[2].minute_start is not None and results[2].day_start is not None


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        ({"credits": 10_000, "limit_minute": 81, "limit_day": 100_000}, 10),  # (81 - 1) / 8
        ({"credits": 10_000, "limit_minute": 100_000, "limit_day": 41}, 5),  # (41 - 1) / 8
        ({"credits": 17, "limit_minute": 100_000, "limit_day": 100_000}, 2),  # (17 - 1) / 8
        ({"credits": 8, "limit_minute": 100_000, "limit_day": 100_000}, 0),  # near a limit: none
    ],
    ids=["minute", "day", "balance", "near-the-end"],
)
async def test_an_allowance_is_at_most_an_eighth_of_what_is_left(
    pool, db, make_org, make_key, connect_account, limits, expected
):
    org = make_org(**limits)
    connect_account(org, 42)

    (result,) = await _one_statement(pool, [request(make_key(org), wish=1000)])

    assert result.counted and result.extra == expected


async def test_no_allowance_when_a_request_of_the_batch_was_refused(pool, db, make_org, make_key, connect_account):
    org = make_org(credits=10_000, limit_minute=2)
    connect_account(org, 42)
    key = make_key(org)

    results = await _one_statement(pool, [request(key, wish=9)] * 3)

    assert [r.counted for r in results] == [True, True, False]
    assert [r.extra for r in results] == [0, 0, 0]
    assert usage_of(db, org) == (2, 9_998)


async def test_a_row_that_only_asks_for_an_allowance_is_not_counted(pool, db, make_org, make_key, connect_account):
    org = make_org(credits=10_000, limit_minute=1000, limit_day=100_000)
    connect_account(org, 42)
    key = make_key(org)
    ask = replace(request(key, None, permission="", wish=40), counts=False)

    results = await _one_statement(pool, [request(key), ask])

    assert [r.counted for r in results] == [True, False]
    assert [r.extra for r in results] == [0, 40]
    assert results[1].minute_used == 1  # the allowance starts after the batch's one request
    assert usage_of(db, org) == (41, 10_000 - 41)


# --- while an allowance is out ---------------------------------------------------------------


def reserved_until(db, org: int):
    return db.execute("SELECT reserved_until - now() FROM organizations WHERE id = %s", (org,)).fetchone()[0]


@pytest.mark.parametrize(
    ("limits", "refusal"),
    [
        ({"credits": 17, "limit_minute": 100_000, "limit_day": 100_000}, "402"),  # (17 - 1) / 8 = 2
        ({"credits": 10_000, "limit_minute": 100_000, "limit_day": 17}, "429"),
    ],
    ids=["balance", "window"],
)
async def test_a_request_that_does_not_fit_while_an_allowance_is_out_is_deferred_until_it_is_back(
    pool, db, make_org, make_key, connect_account, limits, refusal
):
    org = make_org(**limits)
    connect_account(org, 42)
    key = make_key(org)
    (granted,) = await _one_statement(pool, [replace(request(key, wish=1000), hold=1.5)])
    assert granted.extra == 2
    assert timedelta(seconds=1.3) < reserved_until(db, org) <= timedelta(seconds=1.5)
    rest = await _one_statement(pool, [request(key)] * 14)  # 1 + 2 reserved + 14: nothing left
    assert all(r.counted and r.debited for r in rest)

    late, final = await _one_statement(pool, [request(key), replace(request(key), final=True)])

    # Not refused while the reserved two may come back: asked again after retry_in.
    assert late.deferred and not late.counted and 1.0 < late.retry_in <= 1.5
    assert late.reserved == 2  # at most what may come back: no more need wait
    assert late.permitted and late.verdict is None
    # A final request is decided: the refusal it would have had without the allowance.
    assert not final.deferred
    if refusal == "402":
        assert final.counted and not final.debited
    else:
        assert not final.counted
    assert usage_of(db, org)[0] == 17 + (refusal == "402")  # the deferred one is not counted


async def test_no_request_is_deferred_once_the_reservation_has_ended(pool, db, make_org, make_key, connect_account):
    org = make_org(credits=17)
    connect_account(org, 42)
    key = make_key(org)
    (granted,) = await _one_statement(pool, [replace(request(key, wish=1000), hold=0.2)])
    await _one_statement(pool, [request(key)] * 14)
    await asyncio.sleep(0.3)

    (refused,) = await _one_statement(pool, [request(key)])

    assert granted.extra == 2 and not refused.deferred and refused.counted and not refused.debited
