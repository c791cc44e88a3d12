"""Schemathesis over the served OpenAPI schema: every operation, seeded and bounded.

A real ``relay serve`` against the sandbox, called with an admin key of an organization with
room (credits and rate windows) and a connected account. Whatever the generated request,
the answer is never a 5xx, and every error is a JSON object with an ``error`` member.
A longer run by hand: ``RELAY_FUZZ_EXAMPLES=200 pytest tests/test_fuzz.py`` (docs/fuzzing.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import httpx
import psycopg
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from app.admin import service as admin
from tests.fixtures.api import ROOT, ApiProcess, _wait_healthy, auth
from tests.fixtures.database import TEST_KEYS_ENV
from tests.fixtures.net import free_port

EXAMPLES = int(os.environ.get("RELAY_FUZZ_EXAMPLES", "8"))
ACCOUNT_ID = 424242


@pytest.fixture(scope="module")
def fuzzed_api(database_url: str, sandbox, keyring, tmp_path_factory) -> Iterator[tuple[ApiProcess, str]]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        org_id = admin.create_organization(
            conn, "fuzz", credits=10_000_000, limit_minute=10_000_000, limit_day=10_000_000
        )
        key = admin.create_key(conn, org_id, "admin").secret
        admin.connect_account(conn, org_id, ACCOUNT_ID, f"sandbox-{ACCOUNT_ID}", keyring=keyring)
    port = free_port()
    env = {
        **os.environ,
        **TEST_KEYS_ENV,
        "RELAY_DATABASE_URL": database_url,
        "RELAY_DATA_DIR": str(tmp_path_factory.mktemp("fuzz")),
        "RELAY_UPSTREAM_URL": sandbox.url,
        "RELAY_UPSTREAM_MAX_ATTEMPTS": "1",
        "RELAY_LOG_LEVEL": "ERROR",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)], cwd=ROOT, env=env
    )
    api = ApiProcess(url=f"http://127.0.0.1:{port}", process=process)
    try:
        _wait_healthy(api)
        yield api, key
    finally:
        api.stop()


def check(case, api: ApiProcess, key: str) -> None:
    account = (case.path_parameters or {}).get("account_id")
    if isinstance(account, int) and account % 2:
        case.path_parameters["account_id"] = ACCOUNT_ID  # half the cases reach a real account
    response = case.call(base_url=api.url, headers=auth(key), timeout=30)
    assert response.status_code < 500, (case.as_curl_command(), response.text[:500])
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body, dict) and isinstance(body.get("error"), str), (
            case.as_curl_command(),
            response.text[:500],
        )


def test_no_operation_answers_a_5xx_or_an_error_without_error(fuzzed_api) -> None:
    api, key = fuzzed_api
    schema = schemathesis.openapi.from_url(f"{api.url}/docs/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    served = httpx.get(f"{api.url}/docs/openapi.json").json()["paths"]
    assert len(operations) == sum(len(methods) for methods in served.values())  # every one

    for operation in operations:

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,  # the same cases on every run
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def fuzz(case) -> None:
            check(case, api, key)

        fuzz()
