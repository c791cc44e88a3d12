"""Parameters at the edges of their types, through the real app, database and sandbox.

``edge_api`` is an organization with an admin key, generous credits and rate limits, and one
connected sandbox account; its client is the in-process app whose upstream is the sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import count
from typing import Any

import pytest
from litestar.testing import TestClient

from app.settings import Settings
from tests.fixtures.api import auth

_account_ids = count(9101)


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return settings.replace(upstream_url=sandbox.url, upstream_max_attempts=1, upstream_backoff_base=0.0)


@dataclass
class EdgeApi:
    client: TestClient
    key: str
    account_id: int

    def get(self, path: str, params: Any = None, *, key: str | None = None):
        """GET ``path`` (``{account}``: this caller's account id) with a raw query string
        or a mapping of parameters."""
        url = path.format(account=self.account_id)
        if isinstance(params, str):
            url, params = f"{url}?{params}", None
        return self.client.get(url, params=params, headers=auth(key or self.key))


@pytest.fixture
def edge_api(api_client: TestClient, make_org, make_key, connect_account, api_clock_on_sandbox, sandbox_reset) -> EdgeApi:
    org_id = make_org(credits=1_000_000, limit_minute=1_000_000, limit_day=1_000_000)
    account_id = next(_account_ids)
    connect_account(org_id, account_id)
    return EdgeApi(api_client, make_key(org_id, "admin"), account_id)


def error_of(response, status: int) -> str:
    """The message of an error answer with ``status`` (the body is exactly error and code)."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "code"}, body
    return body["error"]
