"""The live routes under test: the real app in-process, the sandbox upstream over real HTTP.

``live_api`` is an organization with an admin key and one connected sandbox account, and a
client for the API whose ``upstream_url`` is the sandbox. Our clock is pinned to the
sandbox's (frozen at its epoch), so the default date windows both sides compute agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from typing import Any

import pytest
from litestar.testing import TestClient

from app.settings import Settings
from tests.fixtures.api import auth

_account_ids = count(7001)


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    """The API against the sandbox; quick retries so fault tests stay short."""
    return settings.replace(
        upstream_url=sandbox.url,
        upstream_max_attempts=2,
        upstream_backoff_base=0.01,
        upstream_backoff_max=0.02,
    )


@pytest.fixture(autouse=True)
def _sandbox_world(api_clock_on_sandbox, sandbox_reset) -> None:
    """Our clock is the sandbox's; faults, rejected credentials and read marks never leak
    into the next test."""


@dataclass
class LiveApi:
    """A caller of the API: one organization, its key and its connected ``account_id``."""

    client: TestClient
    key: str
    account_id: int
    org_id: int

    def get(self, path: str, **params: Any):
        """GET ``path``; ``{account}`` in it is this caller's account id."""
        return self.client.get(
            path.format(account=self.account_id), params=params, headers=auth(self.key)
        )

    def post(self, path: str, **kwargs: Any):
        return self.client.post(
            path.format(account=self.account_id), headers=auth(self.key), **kwargs
        )

    def ok(self, path: str, **params: Any) -> dict:
        """The body of a 200 (anything else fails the test, with the body in the message)."""
        response = self.get(path, **params)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["_meta"]["_credits"]["used"] == 1
        return body

    def walk(self, path: str, member: str, **params: Any) -> tuple[list[dict], list[dict]]:
        """Follow ``_pagination.next_page`` from the first page to the last.

        Returns (every row of ``data[member]`` in order, every page's body).
        """
        body = self.ok(path, **params)
        pages = [body]
        while "_pagination" in body:
            response = self.client.get(body["_pagination"]["next_page"], headers=auth(self.key))
            assert response.status_code == 200, response.text
            body = response.json()
            pages.append(body)
            assert len(pages) < 500, "paging does not end"
        rows = [row for page in pages for row in page["data"][member]]
        return rows, pages

    def error(self, status: int, path: str, **params: Any) -> str:
        """The message of an error answer with ``status``, which charged 1 credit."""
        response = self.get(path, **params)
        return error_message(response, status)


def error_message(response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "code"}, body
    assert response.headers["x-credits-used"] == "1"
    return body["error"]


@pytest.fixture
def live_api(api_client: TestClient, make_org, make_key, connect_account) -> LiveApi:
    org_id = make_org(credits=100_000)
    account_id = next(_account_ids)
    connect_account(org_id, account_id)
    return LiveApi(api_client, make_key(org_id, "admin"), account_id, org_id)


@pytest.fixture
def upstream_get(sandbox, live_api: LiveApi) -> Callable[..., dict]:
    """The sandbox's own answer for the same account (the truth our pages are checked against)."""

    def get(path: str, **params: Any) -> dict:
        response = sandbox.get(live_api.account_id, path, **params)
        assert response.status_code == 200, response.text
        return response.json()

    return get
