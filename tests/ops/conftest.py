"""The sync fixtures (settings aimed at the sandbox) serve the status page tests too; and
``client_of``: the app in-process on the test database."""

import pytest
from litestar.testing import TestClient

from tests.gate.probe import probe_app
from tests.sync.conftest import new_account, sync_settings  # noqa: F401  (fixtures)


@pytest.fixture
def client_of(api_settings, db):
    """``client_of(**settings)``: the app (with the gate's probe routes, ``tests/gate/probe.py``)
    with those settings, closed after the test."""
    opened: list[TestClient] = []

    def open_client(**changes) -> TestClient:
        client = TestClient(probe_app(api_settings.replace(**changes)), raise_server_exceptions=False)
        opened.append(client.__enter__())
        return opened[-1]

    yield open_client
    for client in opened:
        client.__exit__(None, None, None)
