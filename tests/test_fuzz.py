"""Schemathesis over the served OpenAPI schema: every operation, seeded and bounded.

A real ``relay serve`` against the sandbox, called with an admin key of an organization with
room (credits and rate windows) and a connected account. Whatever the generated request,
the answer is never a 5xx, and every error is a JSON object with an ``error`` member.
A longer run by hand: ``RELAY_FUZZ_EXAMPLES=200 pytest tests/test_fuzz.py`` (docs/fuzzing.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from tests.fixtures.api import ApiProcess, auth, serving_on_sandbox

EXAMPLES = int(os.environ.get("RELAY_FUZZ_EXAMPLES", "8"))
ACCOUNT_ID = 424242


@pytest.fixture(scope="module")
def fuzzed_api(database_url: str, sandbox, keyring, tmp_path_factory) -> Iterator[tuple[ApiProcess, str]]:
    with serving_on_sandbox(database_url, sandbox, keyring, tmp_path_factory.mktemp("fuzz"), ACCOUNT_ID) as served:
        yield served


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
