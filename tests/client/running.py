"""What the client tests share: ``relay serve`` started on the test's database once the test
has filled the store (its upstream the sandbox), the window they read, and the stored ids
their pages are checked against."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.fixtures.api import ApiProcess, start_api_process

WINDOW = {"start_date": "2025-01-01 00:00:00", "end_date": "2025-12-31 23:59:59"}


@pytest.fixture
def relay(api_caller, database_url, sandbox, tmp_path) -> Iterator[Callable[[], ApiProcess]]:
    """A starter of ``relay serve`` (called once the store is filled); stops what it started."""
    processes: list[ApiProcess] = []

    def start() -> ApiProcess:
        processes.append(start_api_process(
            database_url, tmp_path / "relay", RELAY_UPSTREAM_URL=sandbox.url,
            RELAY_UPSTREAM_MAX_ATTEMPTS="1", RELAY_LOG_LEVEL="ERROR",
        ))
        return processes[-1]

    yield start
    for process in processes:
        process.stop()


def stored_ids(api_caller, table: str) -> list[str]:
    """The ids of ``table``'s rows for the test's account inside ``WINDOW``, sorted."""
    rows = api_caller.db.execute(
        f"SELECT id FROM {table} WHERE account_id = %s AND created_at BETWEEN %s AND %s",
        (api_caller.account_id, WINDOW["start_date"] + "+00", WINDOW["end_date"] + "+00"),
    )
    return sorted(str(row[0]) for row in rows)
