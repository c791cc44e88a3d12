"""Schemathesis's response checks over the served OpenAPI document: every operation, every
answer as documented.

The same set-up as ``tests/test_fuzz.py`` (a real ``relay serve`` against the sandbox, an
admin key of an organization with room, one connected account), but every generated case
names the provisioned account, so the answers are the routes' real ones (200s with data,
the store routes' live fallback, the exports' 409), and each answer must conform: its
status is documented for the operation (``status_code_conformance``), its content type too
(``content_type_conformance``), its body matches the documented schema
(``response_schema_conformance``: the ``app.answers`` types, ``ErrorBody``) and it carries
every header the document calls required (``response_headers_conformance``). 0 failures.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.fixtures.api import ApiProcess, auth, serving_on_sandbox
from tests.test_fuzz import EXAMPLES

#: The provisioned account (not test_fuzz's: one organization owns an account).
ACCOUNT_ID = 434343

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


@pytest.fixture(scope="module")
def conformance_api(database_url: str, sandbox, keyring, tmp_path_factory) -> Iterator[tuple[ApiProcess, str]]:
    """``relay serve`` on the sandbox; an admin key of an organization with room and the account."""
    with serving_on_sandbox(database_url, sandbox, keyring, tmp_path_factory.mktemp("conformance"), ACCOUNT_ID) as served:
        yield served


def test_every_answer_of_every_operation_conforms_to_the_document(conformance_api, sandbox) -> None:
    api, key = conformance_api
    link = sandbox.get(ACCOUNT_ID, "/tracking-links", limit=1).json()["list"][0]["id"]
    schema = schemathesis.openapi.from_url(f"{api.url}/docs/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    served = httpx.get(f"{api.url}/docs/openapi.json").json()["paths"]
    assert len(operations) == sum(len(methods) for methods in served.values())  # every one
    statuses: dict[str, set[int]] = {}

    for operation in operations:

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def conforms(case) -> None:
            if "account_id" in (case.path_parameters or {}):
                case.path_parameters["account_id"] = ACCOUNT_ID
            if "link_id" in (case.path_parameters or {}):
                case.path_parameters["link_id"] = link  # a link the account has
            response = case.call(base_url=api.url, headers=auth(key), timeout=30)
            statuses.setdefault(operation.label, set()).add(response.status_code)  # noqa: B023 - run in this iteration
            case.validate_response(response, checks=CHECKS)

        conforms()

    # The checks saw real answers: every /v1/ data route answered 200 at least once.
    answered = {label for label, seen in statuses.items() if 200 in seen}
    data_routes = {label for label in statuses if " /v1/" in label and "/exports/" not in label}
    assert data_routes <= answered, sorted(data_routes - answered)
