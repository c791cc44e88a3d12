"""RELAY_DATABASE_READ_URL against a real streaming replica (Debian's PostgreSQL).

A primary is initialised in a temporary directory, a hot standby is cloned from it with
``pg_basebackup -R`` and streams its WAL; the API writes (gate) on the primary and reads
the store (coverage and rows) on the standby. Skipped where Debian's PostgreSQL server
binaries are not installed (``/usr/lib/postgresql/<version>/bin``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.db.migrate import upgrade
from app.settings import Settings
from tests.fixtures.database import TEST_SECRET_KEYS
from tests.fixtures.sandbox import free_port
from tests.store.conftest import StoreApi

pytestmark = pytest.mark.slow


def _debian_bin() -> Path | None:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_basebackup"))
    return versions[-1].parent if versions else None


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run it as the ``postgres`` user then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def _run(command: list[str]) -> None:
    subprocess.run(_as_postgres(command), check=True, capture_output=True)


@pytest.fixture(scope="module")
def replicated() -> Iterator[tuple[str, str]]:
    """(primary URL, standby URL) of a primary and its streaming hot standby."""
    binaries = _debian_bin()
    if binaries is None or (os.geteuid() == 0 and shutil.which("runuser") is None):
        pytest.skip("Debian's PostgreSQL server binaries are not installed")
    # Not under pytest's base directory: the postgres user must be able to reach it.
    root = Path(tempfile.mkdtemp(prefix="relay-replica-"))
    os.chmod(root, 0o777)
    primary, standby = root / "primary", root / "standby"
    ports = free_port(), free_port()
    _run([str(binaries / "initdb"), "-D", str(primary), "-U", "postgres", "--auth=trust"])
    started: list[Path] = []
    try:
        _run([str(binaries / "pg_ctl"), "-D", str(primary), "-w", "-l", str(root / "primary.log"),
              "-o", f"-p {ports[0]} -k {root} -c listen_addresses=127.0.0.1", "start"])
        started.append(primary)
        _run([str(binaries / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(ports[0]), "-U", "postgres",
              "-D", str(standby), "-R", "-X", "stream"])
        _run([str(binaries / "pg_ctl"), "-D", str(standby), "-w", "-l", str(root / "standby.log"),
              "-o", f"-p {ports[1]} -k {root} -c listen_addresses=127.0.0.1", "start"])
        started.append(standby)
        primary_url = f"postgresql://postgres@127.0.0.1:{ports[0]}/postgres"
        standby_url = f"postgresql://postgres@127.0.0.1:{ports[1]}/postgres"
        upgrade(primary_url)
        yield primary_url, standby_url
    finally:
        for data in reversed(started):
            subprocess.run(_as_postgres([str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]),
                           capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _wait_replayed(primary: psycopg.Connection, standby_url: str) -> None:
    """Until the standby has replayed everything the primary has written so far."""
    (lsn,) = primary.execute("SELECT pg_current_wal_lsn()").fetchone()
    with psycopg.connect(standby_url, autocommit=True) as standby:
        deadline = time.monotonic() + 30
        while True:
            (behind,) = standby.execute("SELECT pg_last_wal_replay_lsn() < %s::pg_lsn", (lsn,)).fetchone()
            if not behind:
                return
            assert time.monotonic() < deadline, "the standby did not catch up"
            time.sleep(0.05)


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


def test_store_reads_on_the_standby_see_what_the_primary_committed(store_api: StoreApi, replicated, db):
    primary_url, standby_url = replicated
    with psycopg.connect(standby_url) as standby:
        assert standby.execute("SELECT pg_is_in_recovery()").fetchone()[0] is True
    store_api.sandbox.configure_account(store_api.account_id, chargebacks=30, history_days=200)
    store_api.fill_snapshot("chargebacks", "/payouts/chargebacks")
    _wait_replayed(db, standby_url)

    body = store_api.ok("/payouts/chargebacks", start_date="2025-01-01 00:00:00")
    live = store_api.ok("/payouts/chargebacks", start_date="2025-01-01 00:00:00", fresh="true")

    assert body["_meta"]["_cache"]["source"] == "store"
    assert body["data"]["list"] and body["data"]["list"] == live["data"]["list"]
    with psycopg.connect(standby_url) as standby:
        reads = standby.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'creator-relay:api-read'"
        ).fetchone()[0]
    assert reads >= 1  # the store read went through the read pool's connection to the standby
