"""A Citus cluster on this machine: a coordinator and workers, for the tests and ``make bench``.

:func:`running_cluster` starts the servers (Debian's PostgreSQL with
``shared_preload_libraries = 'citus'``, each on a free port, in one temporary directory) and
stops them and removes the directory at the end, also on an error or when the caller unwinds
on Ctrl-C or SIGTERM; a process killed outright leaves its directory behind, and the next
one that starts a cluster stops and removes it. :func:`ensure_citus` builds Citus first
where it is missing and we are root (``RELAY_CITUS_BUILD``, else ``../shared/citus/build.sh``
beside the repository, as in CI); where it is missing and cannot be built it says why (the
tests that use a cluster are skipped with that reason), and a build that fails as root is
an error. The test session's fixtures are in tests/fixtures/citus.py.

Citus keeps its metadata per database, so a database on the cluster is a database of the same
name on every node, each with the extension, whose coordinator knows the nodes:
``citus_empty_database()`` (like ``empty_database()``) makes one and drops it on every node
afterwards. ``CitusCluster.add_worker`` starts one more worker and adds it to every database
on the cluster (growing a cluster and rebalancing); a test that grows a cluster starts one of
its own with :func:`running_cluster`, so the session's keeps its two workers.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import psycopg

from bench.pgnodes import PgNode, hand_to_server_user, server_settings, servers_can_run

ROOT = Path(__file__).resolve().parents[1]
_PREFIX = "relay-citus-"

NODE_SETTINGS = {
    "shared_preload_libraries": "'citus'",
    # Online shard moves and create_distributed_table_concurrently replicate logically.
    "wal_level": "logical",
    # Citus runs a maintenance daemon per database that has the extension, on every node.
    "max_worker_processes": "32",
    # Throwaway data: no flushes.
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}
# Fewer shards per distributed table than Citus's default of 32: each shard is a table on a
# worker, and the migrations create a dozen distributed tables per test database.
COORDINATOR_SETTINGS = {
    **NODE_SETTINGS,
    "citus.shard_count": "8",
    # Rebalancing runs as background tasks; look for them every second, not every 5 s.
    "citus.background_task_queue_interval": "'1s'",
}


def _pg_config(option: str) -> Path:
    done = subprocess.run([shutil.which("pg_config") or "pg_config", option], check=True,
                          capture_output=True, text=True)
    return Path(done.stdout.strip())


def citus_installed() -> bool:
    return (_pg_config("--pkglibdir") / "citus.so").exists()


def build_script() -> Path:
    """The script that builds and installs Citus: ``RELAY_CITUS_BUILD``, else the shared one."""
    configured = os.environ.get("RELAY_CITUS_BUILD")
    return Path(configured) if configured else ROOT.parent / "shared" / "citus" / "build.sh"


def ensure_citus() -> str | None:
    """None once Citus is installed for the server (built here when missing and we are root),
    else why a cluster cannot run here. A failed build as root raises."""
    if (reason := servers_can_run()) is not None:
        return reason
    if citus_installed():
        return None
    script = build_script()
    if os.geteuid() != 0:
        return f"Citus is not installed for {_pg_config('--bindir')} and building it ({script}) needs root"
    if not script.exists():
        return f"Citus is not installed and its build script {script} is missing (RELAY_CITUS_BUILD names another)"
    # One build at a time on the machine: parallel sessions wait for the first one's.
    with open(Path(tempfile.gettempdir()) / "relay-build-citus.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not citus_installed():
            done = subprocess.run(["bash", str(script)], capture_output=True, text=True)
            if done.returncode != 0 or not citus_installed():
                raise RuntimeError(f"building Citus with {script} failed:\n{(done.stdout + done.stderr)[-3000:]}")
    return None


def node_settings(coordinator: bool) -> dict[str, str]:
    settings = dict(COORDINATOR_SETTINGS if coordinator else NODE_SETTINGS)
    if "output_plugin_libraries" in server_settings():
        # Servers with this setting (Debian's 15.20) allow only the listed logical decoding
        # output plugins; the logical replication above decodes with Citus's own.
        settings["output_plugin_libraries"] = "'pgoutput, test_decoding, citus'"
    return settings


class CitusCluster:
    """A coordinator and workers under ``root``, and the databases made on them."""

    def __init__(self, root: Path, coordinator_settings: dict[str, str] | None = None) -> None:
        self.root = root
        self.coordinator = PgNode(root, "coordinator", {**node_settings(coordinator=True), **(coordinator_settings or {})})
        self.workers: list[PgNode] = []
        self._databases: set[str] = set()

    @property
    def nodes(self) -> list[PgNode]:
        return [self.coordinator, *self.workers]

    def _template(self) -> Path:
        """A data directory, initdb'ed once, that every node starts as a copy of."""
        template = PgNode(self.root, "template")
        if not template.data.exists():
            template.initdb()
        return template.data

    def start(self, workers: int) -> None:
        self.workers = [PgNode(self.root, f"worker{n}", node_settings(coordinator=False))
                        for n in range(1, workers + 1)]
        template = self._template()
        _on_each(self.nodes, lambda node: node.start(template))

    def stop(self) -> None:
        _on_each(self.nodes, PgNode.stop)

    @contextmanager
    def plain_server(self) -> Iterator[PgNode]:
        """A PostgreSQL server beside the cluster: a worker's build and settings without
        Citus (what ``make bench`` measures the cluster against), in the cluster's directory
        (so an orphan is swept with it); stopped at the end."""
        node = PgNode(self.root, "plain", {k: v for k, v in NODE_SETTINGS.items() if k != "shared_preload_libraries"})
        node.start(self._template())
        try:
            yield node
        finally:
            node.stop()

    def add_worker(self) -> PgNode:
        """Start one more worker and add it to every database on the cluster; new databases
        get it too. Its shards come by rebalancing (``citus_rebalance_start``)."""
        node = PgNode(self.root, f"worker{len(self.workers) + 1}", node_settings(coordinator=False))
        self.workers.append(node)
        node.start(self._template())
        for name in sorted(self._databases):
            _create_with_extension(node, name)
            self._register(name, [node])
        return node

    def _register(self, name: str, workers: list[PgNode]) -> None:
        with psycopg.connect(self.coordinator.url(name), autocommit=True) as conn:
            for worker in workers:
                conn.execute("SELECT citus_add_node('127.0.0.1', %s)", (worker.port,))

    @contextmanager
    def scratch_database(self, prefix: str = "relay_citus") -> Iterator[str]:
        """The URL (on the coordinator) of a fresh database on every node, with the extension
        and the nodes registered; dropped on every node afterwards."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self._databases.add(name)
        try:
            _on_each(self.nodes, lambda node: _create_with_extension(node, name))
            with psycopg.connect(self.coordinator.url(name), autocommit=True) as conn:
                conn.execute("SELECT citus_set_coordinator_host('127.0.0.1', %s)", (self.coordinator.port,))
            self._register(name, self.workers)
            yield self.coordinator.url(name)
        finally:
            self._databases.discard(name)
            _on_each(self.nodes, lambda node: _drop(node, name))


def _on_each(nodes: Iterable[PgNode], action: Callable[[PgNode], object]) -> None:
    """``action`` on every node at once (the servers start and create databases in
    parallel); raises the first failure after all have finished."""
    nodes = list(nodes)
    with ThreadPoolExecutor(max_workers=len(nodes)) as pool:
        futures = [pool.submit(action, node) for node in nodes]
    for future in futures:
        future.result()


def _drop(node: PgNode, name: str) -> None:
    with psycopg.connect(node.url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _create_with_extension(node: PgNode, name: str) -> None:
    with psycopg.connect(node.url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    with psycopg.connect(node.url(name), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS citus")


def shard_placements(conn: psycopg.Connection, table: str) -> dict[int, int]:
    """Shards of ``table`` per node port."""
    rows = conn.execute(
        "SELECT nodeport, count(*) FROM citus_shards WHERE table_name = %s::regclass GROUP BY nodeport",
        (table,),
    ).fetchall()
    return dict(rows)


@contextmanager
def running_cluster(workers: int = 2, **coordinator_settings: str) -> Iterator[CitusCluster]:
    """A started cluster of a coordinator and ``workers`` workers, stopped and removed at the
    end; ``coordinator_settings`` change the coordinator's configuration."""
    _sweep_orphans()
    root = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))
    cluster = CitusCluster(root, coordinator_settings)
    try:
        hand_to_server_user(root)
        cluster.start(workers)
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


def _sweep_orphans() -> None:
    """Stop and remove the clusters of sessions that were killed outright (their pid is gone)."""
    for root in Path(tempfile.gettempdir()).glob(f"{_PREFIX}*-*"):
        owner = root.name.removeprefix(_PREFIX).split("-", 1)[0]
        if not owner.isdigit() or _alive(int(owner)):
            continue
        for pid_file in root.glob("*/postmaster.pid"):
            PgNode(root, pid_file.parent.name).stop()
        shutil.rmtree(root, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
