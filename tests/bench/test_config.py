"""``make bench``'s settings read from the environment (pure)."""

from __future__ import annotations

import pytest

from bench.config import BenchConfig


def test_defaults_are_the_issue_grid() -> None:
    config = BenchConfig.from_env({})
    assert config.processes == (1, 2)
    assert config.connections == (1, 8, 32, 128)
    assert config.wrk_threads == 2
    assert config.earnings_rows == 1_000_000


def test_a_scaling_grid_from_the_environment() -> None:
    config = BenchConfig.from_env({"BENCH_PROCESSES": "8, 1,4,2", "BENCH_CONNECTIONS": "256,64",
                                   "BENCH_WRK_THREADS": "4", "BENCH_EARNINGS_ROWS": "200000", "BENCH_QUICK": "1"})
    assert config.processes == (1, 2, 4, 8)
    assert config.connections == (64, 256)
    assert config.wrk_threads == 4
    assert config.earnings_rows == 200_000
    assert config.rounds == 3  # the quick sizes still apply to what is not set


def test_cases_a_and_b_measure_their_controls_in_full_runs_unless_told_otherwise() -> None:
    assert BenchConfig.from_env({}).control is True
    assert BenchConfig.from_env({"BENCH_QUICK": "1"}).control is False  # quick runs stay short
    assert BenchConfig.from_env({"BENCH_CONTROL": "0"}).control is False
    assert BenchConfig.from_env({"BENCH_QUICK": "1", "BENCH_CONTROL": "1"}).control is True


def test_case_h_has_a_three_node_cluster_unless_told_otherwise() -> None:
    assert BenchConfig.from_env({}).citus_workers == 2
    assert BenchConfig.from_env({"BENCH_CITUS_WORKERS": "4"}).citus_workers == 4


@pytest.mark.parametrize(("name", "value", "message"), [
    ("BENCH_PROCESSES", "1,two", "BENCH_PROCESSES: expected whole numbers"),
    ("BENCH_CONNECTIONS", "0,8", "BENCH_CONNECTIONS: every count must be at least 1"),
    ("BENCH_WRK_THREADS", "0", "BENCH_WRK_THREADS must be at least 1"),
    ("BENCH_EARNINGS_ROWS", "10", "BENCH_EARNINGS_ROWS at least 1000"),
    ("BENCH_CITUS_WORKERS", "0", "BENCH_CITUS_WORKERS must be at least 1"),
])
def test_bad_settings_name_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        BenchConfig.from_env({name: value})


def test_rounds_alternate_the_order_of_the_loads() -> None:
    from bench.serving import Load, in_order

    loads = {"open": Load("http://a/open?m=", None, (1, 2)), "gated": Load("http://a/v1?m=", "k", (1, 2))}
    assert [[name for name, _ in in_order(loads, r)] for r in range(4)] == [
        ["open", "gated"], ["gated", "open"], ["open", "gated"], ["gated", "open"]]


def test_case_a_takes_more_rounds_at_few_connections() -> None:
    full, quick = BenchConfig.from_env({}), BenchConfig.from_env({"BENCH_QUICK": "1"})
    assert [full.rounds_at(c) for c in full.connections] == [6, 6, 3, 3]
    assert quick.rounds_at(1) == 6 and quick.rounds_at(32) == 3
    assert BenchConfig.from_env({"BENCH_ROUNDS": "9"}).rounds_at(1) == 9  # asked for more: more
