"""Credentials, the sandbox's own rate limit and fault injection, over real HTTP."""

import httpx
import pytest

ACCOUNT = 4201
PATH = "/earnings/transactions"


def test_wrong_or_missing_credentials_answer_401(sandbox):
    url = f"/api/accounts/{ACCOUNT}{PATH}"
    for headers in ({}, {"Authorization": "Bearer sandbox-1"}, {"Authorization": "Basic x"}):
        response = sandbox.control.get(url, headers=headers)
        assert response.status_code == 401
        assert response.json() == {"error": "invalid credentials"}


def test_rejected_credentials_answer_401_until_restored(sandbox):
    sandbox.reject_credentials(ACCOUNT)
    assert sandbox.get(ACCOUNT, PATH).status_code == 401
    assert sandbox.get(ACCOUNT + 1, PATH).status_code == 200
    sandbox.reject_credentials(ACCOUNT, False)
    assert sandbox.get(ACCOUNT, PATH).status_code == 200


def test_own_rate_limit_answers_429_with_retry_after(sandbox):
    sandbox.set_rate_limit(rps=0.01, burst=2)
    assert [sandbox.get(ACCOUNT, PATH).status_code for _ in range(2)] == [200, 200]
    limited = sandbox.get(ACCOUNT, PATH)
    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1
    assert sandbox.get(ACCOUNT + 1, PATH).status_code == 200  # per account


def test_status_fault_hits_only_the_named_account_and_path_for_count_requests(sandbox):
    sandbox.add_fault("status", count=2, status=502, account_id=ACCOUNT, path_prefix=f"/api/accounts/{ACCOUNT}/posts")
    assert sandbox.get(ACCOUNT, PATH).status_code == 200
    assert sandbox.get(ACCOUNT + 1, "/posts").status_code == 200
    assert [sandbox.get(ACCOUNT, "/posts").status_code for _ in range(3)] == [502, 502, 200]


def test_rate_limit_fault_carries_retry_after(sandbox):
    sandbox.add_fault("rate_limit", retry_after=7)
    response = sandbox.get(ACCOUNT, PATH)
    assert response.status_code == 429 and response.headers["Retry-After"] == "7"


def test_timeout_fault_outlasts_the_client_read_timeout(sandbox):
    sandbox.add_fault("timeout", seconds=2)
    with sandbox.client(timeout=httpx.Timeout(5, read=0.3)) as client, pytest.raises(httpx.ReadTimeout):
        client.get(f"/api/accounts/{ACCOUNT}{PATH}", headers=sandbox.headers(ACCOUNT))


def test_truncate_fault_cuts_the_body_mid_way(sandbox):
    sandbox.add_fault("truncate")
    with sandbox.client() as client, pytest.raises(httpx.RemoteProtocolError):
        client.get(f"/api/accounts/{ACCOUNT}{PATH}", params={"limit": 50}, headers=sandbox.headers(ACCOUNT))
    assert sandbox.get(ACCOUNT, PATH).status_code == 200


def test_latency_fault_delays_but_answers(sandbox):
    sandbox.add_fault("latency", ms=50)
    assert sandbox.get(ACCOUNT, PATH).status_code == 200
    assert sandbox.stats()["faults.latency"] == 1


def test_random_fault_rates_apply_at_run_time_and_reset(sandbox):
    sandbox.set_fault_rates(error_rate=1.0)
    assert sandbox.get(ACCOUNT, PATH).status_code == 503
    sandbox.set_fault_rates(error_rate=0.0, rate_limit_rate=1.0, retry_after=3)
    assert sandbox.get(ACCOUNT, PATH).headers["Retry-After"] == "3"
    sandbox.reset()
    assert sandbox.get(ACCOUNT, PATH).status_code == 200


def test_faults_never_touch_the_control_api(sandbox):
    sandbox.set_fault_rates(error_rate=1.0)
    assert sandbox.control.get("/_sandbox/clock").status_code == 200
