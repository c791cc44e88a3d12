"""The order of checks: authentication, rate limit, permission, account, validation,
credits, handler. Each test breaks two neighbouring rules at once and expects the earlier."""

from __future__ import annotations

import pytest

from tests.fixtures.api import auth, settle_ledger, usage
from tests.gate.probe import CALLS

ACCOUNT = 42
FOREIGN = 777


@pytest.fixture
def spent_org(make_org, connect_account, make_org_foreign):
    """An organization with no credits left and account 42 (and another owning 777)."""
    org_id = make_org(credits=0)
    connect_account(org_id, ACCOUNT)
    return org_id


@pytest.fixture
def make_org_foreign(make_org, connect_account):
    other = make_org()
    connect_account(other, FOREIGN)
    return other


def test_authentication_before_rate_limit(probe_client, make_org, make_key):
    org_id = make_org(limit_minute=1)
    key = make_key(org_id)
    probe_client.get("/v1/probe/global", headers=auth(key))  # fills the window
    # a bad key on a full window: 401, not 429
    assert probe_client.get("/v1/probe/global", headers=auth("crk_live_" + "Z" * 43)).status_code == 401


def test_rate_limit_before_permission(probe_client, make_org, make_key):
    org_id = make_org(limit_minute=1)
    probe_client.get("/v1/probe/global", headers=auth(make_key(org_id)))
    analytics = make_key(org_id, "analytics")  # lacks api_gifs_trending
    assert probe_client.get("/v1/probe/global", headers=auth(analytics)).status_code == 429


def test_permission_before_account(probe_client, spent_org, make_key):
    analytics = make_key(spent_org, "analytics")
    assert probe_client.get(f"/v1/{FOREIGN}/probe", headers=auth(analytics)).status_code == 403


def test_account_before_validation(probe_client, spent_org, make_key):
    response = probe_client.get(f"/v1/{FOREIGN}/probe?limit=0", headers=auth(make_key(spent_org)))
    assert response.status_code == 404


def test_validation_before_credits(probe_client, db, spent_org, make_key):
    response = probe_client.get(f"/v1/{ACCOUNT}/probe?limit=0", headers=auth(make_key(spent_org)))

    assert response.status_code == 400
    settle_ledger(probe_client)
    assert usage(db, spent_org).ledger == [(400, 1, False)]  # the spent balance stays at 0


def test_body_size_before_credits(probe_client, spent_org, make_key, api_settings):
    body = b"x" * (api_settings.max_body_bytes + 1)
    response = probe_client.post(f"/v1/{ACCOUNT}/probe/read", content=body, headers=auth(make_key(spent_org)))
    assert response.status_code == 413


def test_credits_before_handler(probe_client, spent_org, make_key):
    response = probe_client.get(f"/v1/{ACCOUNT}/probe/boom", headers=auth(make_key(spent_org)))

    assert response.status_code == 402
    assert CALLS == []
