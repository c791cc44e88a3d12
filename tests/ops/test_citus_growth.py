"""Growing a Citus cluster under a running stack (docs/scaling.md, "Moving onto Citus: the
runbook"): with the API serving and a worker backfilling, a third worker node is added and
the shards rebalanced online; no request fails, no row is lost or event repeated, and the
store ends equal to the sandbox's truth."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import httpx
import psycopg
import pytest

from app.admin import service as admin
from app.db.citus import distributed_tables
from app.db.migrate import migrate
from bench.citus_cluster import running_cluster, shard_placements
from sync.resources import REGISTRY
from tests.fixtures.api import start_api_process
from tests.fixtures.net import wait_for
from tests.fixtures.sandbox import fresh_account_id
from tests.fixtures.threads import in_background
from tests.sync.helpers import sandbox_truth, store_truth
from tests.sync.processes import relay, worker_env

pytestmark = pytest.mark.slow

#: The store-served routes the clients keep calling, over windows that end before the
#: sandbox's frozen now: its last day (the first incremental pass covers it, so the store
#: answers while the backfill runs) and its last year (once the backfill is done).
WINDOWS = ({"start_date": "2025-12-31 00:00:00", "end_date": "2025-12-31 23:59:59"},
           {"start_date": "2025-01-01 00:00:00", "end_date": "2025-12-31 23:59:59"})
ROUTES = (
    *((path, window) for window in WINDOWS
      for path in ("/v1/{account}/earnings", "/v1/{account}/earnings/chart", "/v1/{account}/payouts/chargebacks",
                   "/v1/{account}/payouts/requests")),
    ("/v1/{account}/posts", {}),
)


@dataclass
class Polls:
    """What the clients got while the cluster grew."""

    phase: str = "syncing"  # what the cluster is doing: set by the test
    answers: Counter = field(default_factory=Counter)  # (phase, route, status, source)
    failures: list[str] = field(default_factory=list)


@contextmanager
def clients_polling(api_url: str, key: str, accounts: list[int]) -> Iterator[Polls]:
    """One client calling every route of every account in turn until the block ends."""
    polls, stop = Polls(), threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=api_url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
            for n in count():
                if stop.is_set():
                    return
                path, params = ROUTES[n % len(ROUTES)]
                url = path.format(account=accounts[n // len(ROUTES) % len(accounts)])
                try:
                    response = client.get(url, params=params)
                except httpx.HTTPError as exc:
                    polls.failures.append(f"{url}: {exc!r}")
                    continue
                source = response.json().get("_meta", {}).get("_cache", {}).get("source")
                polls.answers[polls.phase, path, response.status_code, source] += 1
                if response.status_code >= 500:
                    polls.failures.append(f"{url}: {response.status_code} {response.text[:300]}")

    with in_background(poll, stop, join_timeout=90):
        yield polls


@contextmanager
def running_worker(url: str, sandbox) -> Iterator[None]:
    # A paced backfill: it still runs while the shards move, however fast the machine.
    worker = relay("worker", env=worker_env(url, sandbox, RELAY_SYNC_TICK_SECONDS="1",
                                            RELAY_BACKFILL_REQUESTS_PER_SECOND="10"))
    try:
        yield
    finally:
        worker.terminate()
        assert worker.wait(60) == 0


def stored_keys(conn: psycopg.Connection) -> dict[str, set]:
    """Every stored row's key, per synced resource."""
    return {name: set(conn.execute(f"SELECT account_id, id FROM {name}" if name != "tracking_link_daily_stats"
                                   else f"SELECT account_id, link_id, date FROM {name}").fetchall())
            for name in REGISTRY}


def everything_synced(conn: psycopg.Connection) -> bool:
    (left,) = conn.execute(
        """SELECT count(*) FROM sync_tasks t LEFT JOIN sync_state s USING (account_id, resource)
           WHERE t.backfill_since IS NOT NULL OR s.last_success_at IS NULL""").fetchone()
    return left == 0


def store_answers(api_url: str, key: str, accounts: list[int]) -> dict[str, tuple[int, str | None]]:
    """Each windowed route's status and source, for every account."""
    found = {}
    with httpx.Client(base_url=api_url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
        for account_id in accounts:
            for path, window in ROUTES:
                if window:
                    answer = client.get(url := path.format(account=account_id), params=window)
                    found[f"{url} {window['start_date']}"] = (answer.status_code,
                                                             answer.json().get("_meta", {}).get("_cache", {}).get("source"))
    return found


def api_connections(url: str) -> int:
    """The API's store-read connections on one worker node."""
    with psycopg.connect(url) as conn:
        (n,) = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'creator-relay:api-shard'"
                            " AND datname = current_database()").fetchone()
    return n


def test_a_worker_node_added_and_rebalanced_under_a_running_stack_loses_nothing(citus_ready, sandbox, keyring,
                                                                                 tmp_path: Path):
    accounts = [fresh_account_id() for _ in range(4)]
    for account_id in accounts:
        sandbox.configure_account(account_id, earnings=8000, history_days=300)
    with running_cluster(workers=2) as cluster, cluster.scratch_database() as url, \
            psycopg.connect(url, autocommit=True) as conn:
        migrate(url)  # a fresh coordinator: relay migrate distributes
        org = admin.create_organization(conn, "growing", credits=10**9, limit_minute=10**7, limit_day=10**9)
        key = admin.create_key(conn, org, "admin").secret
        for account_id in accounts:
            admin.connect_account(conn, org, account_id, f"sandbox-{account_id}", keyring=keyring)
            for resource in REGISTRY:
                conn.execute("INSERT INTO sync_tasks (account_id, resource, backfill_since) VALUES (%s, %s, 'epoch')"
                             " ON CONFLICT (account_id, resource) DO UPDATE SET backfill_since = 'epoch'",
                             (account_id, resource))
        api = start_api_process(url, tmp_path / "relay", RELAY_UPSTREAM_URL=sandbox.url, RELAY_LOG_LEVEL="ERROR")
        try:
            with running_worker(url, sandbox), clients_polling(api.url, key, accounts) as polls:
                wait_for(lambda: conn.execute("SELECT count(*) FROM earnings").fetchone()[0] > 0, 120,
                         "the worker's first pages")
                before = stored_keys(conn)
                third = cluster.add_worker()
                polls.phase = "rebalancing"
                conn.execute("SELECT citus_rebalance_start()")
                conn.execute("SELECT citus_rebalance_wait()")
                polls.phase = "rebalanced"
                during = stored_keys(conn)
                wait_for(lambda: everything_synced(conn), 300, "every account's backfill")
            answers = store_answers(api.url, key, accounts)
            # The API read the accounts straight from their workers (app.db.shard_reads).
            direct_readers = {w.port: api_connections(w.url(conn.info.dbname)) for w in cluster.workers}
        finally:
            api.stop()

        workers = {w.port for w in cluster.workers}
        assert third.port in workers and len(workers) == 3
        for table, _ in distributed_tables():
            assert set(shard_placements(conn, table)) == workers, table
        # Every request answered, the store's answers among them while the shards moved.
        assert polls.failures == [], polls.failures[:5]
        assert any(phase == "rebalancing" and source == "store" for phase, _, _, source in polls.answers), polls.answers
        # The worker kept syncing while the shards moved, and nothing stored went missing.
        assert sum(map(len, during.values())) > sum(map(len, before.values()))
        after = stored_keys(conn)
        for name in REGISTRY:
            assert before[name] <= during[name] <= after[name], name
        now = int(sandbox.clock()["now"])
        for account_id in accounts:
            for name in REGISTRY:
                assert store_truth(conn, account_id, name, 0, now) == sandbox_truth(sandbox, account_id, name, 0, now)
        assert set(answers.values()) == {(200, "store")}, answers
        assert any(direct_readers.values()), direct_readers
        # History is no event: each account's backfill completed once, and nothing else.
        events = conn.execute("SELECT account_id, type, count(*) FROM events GROUP BY 1, 2").fetchall()
        assert sorted(events) == sorted((a, "sync.backfill_completed", 1) for a in accounts)
