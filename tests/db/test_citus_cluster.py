"""The test session's Citus cluster (tests/fixtures/citus.py, bench/citus_cluster.py): databases on it are distributed."""

from __future__ import annotations

import psycopg
import pytest

from bench import citus_cluster as citus
from bench.citus_cluster import running_cluster, shard_placements

pytestmark = pytest.mark.slow


def test_a_distributed_table_has_shards_and_rows_on_both_workers(citus_cluster, citus_empty_database):
    with citus_empty_database() as url, psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE items (account_id bigint, id bigint, PRIMARY KEY (account_id, id))")
        conn.execute("SELECT create_distributed_table('items', 'account_id')")
        conn.execute("INSERT INTO items SELECT a, 1 FROM generate_series(1, 100) a")

        placements = shard_placements(conn, "items")
        assert set(placements) == {worker.port for worker in citus_cluster.workers}
        assert sum(placements.values()) == 8  # the test cluster's citus.shard_count
        rows = conn.execute(
            "SELECT nodeport, count(*) FROM (SELECT get_shard_id_for_distribution_column('items', account_id) AS shard"
            " FROM items) s JOIN citus_shards c ON c.shardid = s.shard GROUP BY nodeport"
        ).fetchall()
        assert {port for port, _ in rows} == set(placements) and sum(n for _, n in rows) == 100


def test_a_scratch_database_exists_on_every_node_until_it_is_dropped(citus_cluster, citus_empty_database):
    def databases(node) -> set[str]:
        with psycopg.connect(node.url()) as conn:
            return {name for (name,) in conn.execute("SELECT datname FROM pg_database")}

    with citus_empty_database("relay_citus_probe") as url:
        name = url.rsplit("/", 1)[1]
        assert all(name in databases(node) for node in citus_cluster.nodes)
        with psycopg.connect(url) as conn:
            active = conn.execute("SELECT nodeport FROM pg_dist_node WHERE noderole = 'primary'").fetchall()
        assert {port for (port,) in active} == {node.port for node in citus_cluster.nodes}
    assert not any(name in databases(node) for node in citus_cluster.nodes)


def test_a_table_distributed_online_takes_an_added_worker_when_rebalanced_online(citus_ready):
    """Both logical-replication paths work here (what converting a live database and growing
    a cluster use): distributing a table with rows concurrently, and moving shards."""
    with running_cluster(workers=2) as cluster, cluster.scratch_database() as url, \
            psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE items (account_id bigint PRIMARY KEY)")
        conn.execute("INSERT INTO items SELECT generate_series(1, 1000)")
        conn.execute("SELECT create_distributed_table_concurrently('items', 'account_id')")
        third = cluster.add_worker()
        conn.execute("SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical')")
        conn.execute("SELECT citus_rebalance_wait()")
        assert set(shard_placements(conn, "items")) == {worker.port for worker in cluster.workers}
        assert third.port in shard_placements(conn, "items")
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (1000,)


@pytest.fixture
def citus_missing(monkeypatch, tmp_path) -> None:
    """Citus not installed here, and a build script that fails with a message."""
    script = tmp_path / "build.sh"
    script.write_text("echo 'no compiler here'; exit 3\n")
    monkeypatch.setattr(citus, "servers_can_run", lambda: None)
    monkeypatch.setattr(citus, "_pg_config", lambda option: tmp_path)
    monkeypatch.setattr(citus, "citus_installed", lambda: False)
    monkeypatch.setenv("RELAY_CITUS_BUILD", str(script))


def test_without_citus_a_user_other_than_root_gets_the_reason_to_skip(citus_missing, monkeypatch):
    monkeypatch.setattr(citus.os, "geteuid", lambda: 1000)
    reason = citus.ensure_citus()
    assert "Citus is not installed" in reason and "needs root" in reason and "build.sh" in reason


def test_without_citus_a_failed_build_as_root_is_an_error_not_a_skip(citus_missing, monkeypatch):
    monkeypatch.setattr(citus.os, "geteuid", lambda: 0)
    with pytest.raises(RuntimeError, match="no compiler here"):
        citus.ensure_citus()
