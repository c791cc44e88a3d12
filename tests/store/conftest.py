"""Store-served routes under test: the real app in-process, the store filled from the sandbox.

``store_api`` is an organization with an admin key and one connected sandbox account, and a
client for the API whose upstream is the sandbox. ``fill_store`` reads a resource's whole
history from the sandbox over HTTP and writes it through the shared payload->row mapping
(``app.store.mapping``, the sync's mapping too), then records the coverage the way the sync
does (``coverage_start`` at the epoch for "from the beginning"). Our clock is pinned to the
sandbox's frozen clock, so default windows agree on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from itertools import count
from typing import Any

import psycopg
import pytest
from litestar.testing import TestClient
from psycopg.types.json import Jsonb

from app.settings import Settings
from app.store.mapping import CONSTANTS, write_items_sql
from tests.fixtures.api import auth

_account_ids = count(8001)
EARNINGS_LANES = [("subscribes", None), *(("tips", s) for s in ("profile", "post_all", "chat", "stream", "story")),
                  ("post", None), ("chat_messages", None), ("stream", None)]


@pytest.fixture
def api_settings(settings: Settings, sandbox) -> Settings:
    return settings.replace(upstream_url=sandbox.url, upstream_max_attempts=1, upstream_backoff_base=0.0)


@pytest.fixture(autouse=True)
def _sandbox_world(api_clock_on_sandbox, sandbox_reset) -> None:
    """Our clock is the sandbox's; faults, rejected credentials and read marks never leak
    into the next test."""


@pytest.fixture(autouse=True)
def _fresh_coverage_cache() -> None:
    """Each test sees the coverage it just wrote, not one a process read earlier."""
    from app.store.source import _COVERAGE_CACHE

    _COVERAGE_CACHE.clear()


def write_page(db: psycopg.Connection, table: str, account_id: int, items: list, **constants: Any) -> None:
    """The shared mapping's upsert, on the test's synchronous connection."""
    if items:
        params = {name: None for name in CONSTANTS} | constants
        db.execute(write_items_sql(table), {**params, "account_id": account_id, "page": Jsonb(items)})


@dataclass
class StoreApi:
    client: TestClient
    key: str
    account_id: int
    db: psycopg.Connection
    sandbox: Any

    def get(self, path: str, **params: Any):
        return self.client.get(f"/v1/{self.account_id}{path}", params=params, headers=auth(self.key))

    def ok(self, path: str, **params: Any) -> dict:
        response = self.get(path, **params)
        assert response.status_code == 200, response.text
        return response.json()

    def follow(self, url: str) -> dict:
        response = self.client.get(url, headers=auth(self.key))
        assert response.status_code == 200, response.text
        return response.json()

    def upstream(self, path: str, **params: Any) -> dict:
        response = self.sandbox.get(self.account_id, path, **params)
        assert response.status_code == 200, response.text
        return response.json()

    # --- filling the store --------------------------------------------------------------
    def cover(self, resource: str, start: int = 0, end: int | None = None) -> None:
        end = self.sandbox.epoch if end is None else end
        self.db.execute(
            """INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at)
               VALUES (%s, %s, to_timestamp(%s), to_timestamp(%s), to_timestamp(%s))
               ON CONFLICT (account_id, resource) DO UPDATE SET coverage_start = excluded.coverage_start,
               coverage_end = excluded.coverage_end, last_success_at = excluded.last_success_at""",
            (self.account_id, resource, start, end, end),
        )

    def fill_earnings(self) -> None:
        for type_, source in EARNINGS_LANES:
            params = {"type": type_, "limit": 1000, "start_date": "1970-01-01"}
            if source:
                params["tipsSource"] = source
            while True:
                body = self.upstream("/earnings/transactions", **params)
                write_page(self.db, "earnings", self.account_id, body["list"], type=type_, tips_source=source)
                if not body["hasMore"]:
                    break
                params |= {"marker": body["nextMarker"], "markerId": body["nextMarkerId"]}
        self.cover("earnings")

    def fill_snapshot(self, table: str, path: str) -> None:
        offset, marker = 0, None
        while True:
            params = {"offset": offset, "start_date": "1970-01-01", **({"marker": marker} if marker else {})}
            if table == "chargebacks":
                params["limit"] = 100
            body = self.upstream(path, **params)
            write_page(self.db, table, self.account_id, body["list"])
            marker, offset = body["marker"], offset + len(body["list"])
            if not body["hasMore"]:
                break
        self.cover(table)

    def fill_posts(self) -> None:
        """Every post, like the sync's cursor: the next page starts one microsecond after the
        tail, so posts sharing the tail's postedAtPrecise are read again, never skipped."""
        for label in (None, "archived", "private_archived"):
            params: dict[str, Any] = {"limit": 100, **({"label": label} if label else {})}
            while True:
                body = self.upstream("/posts", **params)
                write_page(self.db, "posts", self.account_id, body["list"])
                if not body["hasMore"]:
                    break
                tail = Decimal(body["tailMarker"])
                assert Decimal(body["list"][0]["postedAtPrecise"]) != tail, "a group larger than a page"
                params["before_publish_time"] = f"{tail + Decimal('0.000001'):.6f}"
        self.cover("posts")

    def fill_links(self) -> None:
        offset = 0
        links = []
        while True:
            body = self.upstream("/tracking-links", limit=100, offset=offset)
            links += body["list"]
            offset += len(body["list"])
            if not body["hasMore"]:
                break
        write_page(self.db, "tracking_links", self.account_id, links)
        for link in links:
            stats = self.upstream(f"/tracking-links/{link['id']}/stats")
            write_page(self.db, "tracking_link_daily_stats", self.account_id, stats["daily_metrics"], link_id=link["id"])
        self.cover("tracking_links")
        self.cover("tracking_link_daily_stats")


@pytest.fixture
def store_api(api_client: TestClient, make_org, make_key, connect_account, db, sandbox) -> StoreApi:
    # Walks make thousands of requests: a generous plan, so metering never interferes.
    org_id = make_org(credits=10_000_000, limit_minute=1_000_000, limit_day=10_000_000)
    key = make_key(org_id)
    account_id = next(_account_ids)
    connect_account(org_id, account_id)
    return StoreApi(api_client, key, account_id, db, sandbox)
