"""RELAY_DATABASE_READ_URL against a real streaming replica (Debian's PostgreSQL).

A primary is initialised in a temporary directory, a hot standby is cloned from it with
``pg_basebackup -R`` and streams its WAL; the API writes (gate) on the primary and reads
the store (coverage and rows) on the standby. Skipped where no PostgreSQL server binaries
are installed (bench/pgnodes.py).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.db.migrate import upgrade
from app.settings import Settings
from bench.pgnodes import SERVER_USER, PgNode, hand_to_server_user, servers_can_run
from tests.fixtures.api import ApiCaller
from tests.fixtures.database import TEST_SECRET_KEYS
from tests.fixtures.net import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def replicated() -> Iterator[tuple[str, str]]:
    """(primary URL, standby URL) of a primary and its streaming hot standby."""
    if (reason := servers_can_run()) is not None:
        pytest.skip(reason)
    # Not under pytest's base directory: the postgres user must be able to reach it.
    root = Path(tempfile.mkdtemp(prefix="relay-replica-"))
    hand_to_server_user(root)
    primary, standby = PgNode(root, "primary"), PgNode(root, "standby")
    try:
        primary.start()
        primary.run("pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", SERVER_USER,
                    "-D", str(standby.data), "-R", "-X", "stream")
        standby.start()
        upgrade(primary.url())
        yield primary.url(), standby.url()
    finally:
        standby.stop()
        primary.stop()
        shutil.rmtree(root, ignore_errors=True)


def _wait_replayed(primary: psycopg.Connection, standby_url: str) -> None:
    """Until the standby has replayed everything the primary has written so far."""
    (lsn,) = primary.execute("SELECT pg_current_wal_lsn()").fetchone()
    with psycopg.connect(standby_url, autocommit=True) as standby:
        wait_for(lambda: standby.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn,)).fetchone()[0],
                 30, "the standby to catch up", every=0.05)


@pytest.fixture
def settings(replicated, tmp_path: Path) -> Settings:
    """The API on the primary, its store reads on the standby."""
    primary_url, standby_url = replicated
    return Settings(database_url=primary_url, database_read_url=standby_url, secret_keys=TEST_SECRET_KEYS,
                    data_dir=tmp_path / "relay", log_json=False)


@pytest.fixture
def db(replicated) -> Iterator[psycopg.Connection]:
    from tests.fixtures.database import truncate_all

    with psycopg.connect(replicated[0], autocommit=True) as conn:
        truncate_all(conn)
        yield conn


def test_store_reads_on_the_standby_see_what_the_primary_committed(api_caller: ApiCaller, replicated, db):
    primary_url, standby_url = replicated
    with psycopg.connect(standby_url) as standby:
        assert standby.execute("SELECT pg_is_in_recovery()").fetchone()[0] is True
    api_caller.sandbox.configure_account(api_caller.account_id, chargebacks=30, history_days=200)
    api_caller.store.fill_snapshot("chargebacks", "/payouts/chargebacks")
    _wait_replayed(db, standby_url)

    body = api_caller.ok("/v1/{account}/payouts/chargebacks", start_date="2025-01-01 00:00:00")
    live = api_caller.ok("/v1/{account}/payouts/chargebacks", start_date="2025-01-01 00:00:00", fresh="true")

    assert body["_meta"]["_cache"]["source"] == "store"
    assert body["data"]["list"] and body["data"]["list"] == live["data"]["list"]
    with psycopg.connect(standby_url) as standby:
        reads = standby.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'creator-relay:api-read'"
        ).fetchone()[0]
    assert reads >= 1  # the store read went through the read pool's connection to the standby
