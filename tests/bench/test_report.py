"""The benchmark's pure logic: wrk reports parsed, ratios pair by pair, targets judged,
the table and the run configuration. No process is started, nothing is timed."""

from __future__ import annotations

import pytest

from bench.config import BenchConfig
from bench.report import Rounds, Row, Target, costs, percent, ratios, summary, table
from bench.wrk import parse

WRK_REPORT = """Running 5s test @ http://127.0.0.1:8123
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    13.21ms    4.10ms  61.02ms   80.11%
    Req/Sec     1.22k   101.00     1.40k    70.00%
  Latency Distribution
     50%   12.50ms
     75%   14.80ms
     90%   17.90ms
     99%    1.20s
  12170 requests in 5.01s, 9.87MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:   2429.14
Transfer/sec:      1.97MB
"""


def test_a_wrk_report_gives_throughput_latencies_in_ms_and_every_failed_request():
    result = parse(WRK_REPORT)
    assert result.rps == pytest.approx(2429.14)
    assert result.p50_ms == pytest.approx(12.5)
    assert result.p99_ms == pytest.approx(1200.0)
    assert result.requests == 12170
    assert result.errors == 7


def test_microsecond_latencies_and_a_clean_run():
    report = WRK_REPORT.replace("12.50ms", "850.00us").split("  Socket errors")[0] + "Requests/sec:   10.00\n"
    result = parse(report)
    assert result.p50_ms == pytest.approx(0.85)
    assert result.errors == 0


def test_something_else_than_a_wrk_report_is_refused():
    with pytest.raises(ValueError, match="not a wrk"):
        parse("connection refused")


def test_ratios_are_taken_round_by_round_not_of_the_medians():
    # Medians 100 and 100 would give 1.0; pair by pair the rounds say 2.0, 0.5, 1.0.
    r = ratios([200, 50, 100], [100, 100, 100])
    assert r.values == (2.0, 0.5, 1.0)
    assert r.median == 1.0
    assert r.spread(str) == "0.5–2.0"
    with pytest.raises(ValueError):
        ratios([1, 2], [1])


def test_gate_cost_is_the_throughput_lost_per_round():
    assert costs([80, 90, 45], [100, 100, 50]).values == pytest.approx((0.2, 0.1, 0.1))
    assert costs([80, 90, 45], [100, 100, 50]).median == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("target", "value", "met"),
    [(Target(">=", 0.7), 0.7, True), (Target(">=", 0.7), 0.69, False), (Target("<", 50), 50.0, False),
     (Target("<", 50), 49.9, True), (Target("<=", 0.15), 0.15, True), (Target("<=", 1.5), 1.51, False)],
)
def test_targets_compare_the_median_with_their_limit(target, value, met):
    assert target.met(value) is met


def test_the_table_shows_median_spread_target_and_verdict_per_row():
    rows = [
        Row("b", "gate cost", Rounds.of([0.12, 0.2, 0.1]), target=Target("<=", 0.15, percent=True), fmt=percent),
        Row("f", "chart p50", Rounds.of([60.0, 70.0, 40.0]), "ms", target=Target("<", 50)),
        Row("a", "store page", Rounds.of([1234.4]), "req/s", note="p50 2.0 ms"),
        Row("g", "freshness", note="none visible within 420 s"),
        Row("d", "backfill", note="error: boom", failed=True),
    ]
    lines = table(rows).splitlines()
    assert lines[0].startswith("| case | measure | median |")
    assert lines[2] == "| b | gate cost | 12% | 10%–20% | <= 15% | pass |"
    assert lines[3] == "| f | chart p50 | 60.0 ms | 40.0–70.0 | < 50 ms | **FAIL** |"
    assert lines[4] == "| a | store page | 1,234 req/s (p50 2.0 ms) |  |  |  |"
    assert lines[5] == "| g | freshness | none visible within 420 s |  |  |  |"
    assert lines[6].endswith("| **ERROR** |")
    assert summary(rows) == "1 of 3 targets met; not met: f chart p50; d backfill."
    assert summary(rows[:1]) == "All 1 targets met."


def test_a_target_without_a_measurement_fails():
    assert Row("g", "freshness", target=Target("<", 60)).verdict == "**FAIL**"


def test_the_configuration_reads_quick_mode_and_case_selection():
    full = BenchConfig.from_env({})
    assert full.cases == tuple("abcdefgh") and full.rounds >= 3 and full.earnings_rows == 1_000_000
    assert full.deep_page == 10_000 and full.paged_rows >= 100_000 and full.backfill_rows == 1_000_000
    quick = BenchConfig.from_env({"BENCH_QUICK": "1", "BENCH_CASES": " b, A ", "BENCH_SECONDS": "1"})
    assert quick.quick and quick.cases == ("a", "b") and quick.seconds == 1
    assert quick.earnings_rows < full.earnings_rows and quick.seconds < full.seconds
    assert quick.citus_rows < full.citus_rows and quick.citus_accounts <= full.citus_accounts
    with pytest.raises(ValueError, match="unknown case"):
        BenchConfig.from_env({"BENCH_CASES": "a,z"})


def _run(date: str, cases: str, commit: str, rows: list[str], mode: str = "full") -> str:
    table = "\n".join(["| case | measure | median | spread (min–max of rounds) | target | result |",
                       "|---|---|---|---|---|---|", *rows])
    return (f"\n## make bench, {date} UTC, cases {cases}\n\n- machine: 2 cores\n"
            f"- code: {commit}; mode: {mode}, 3 rounds of 5 s per wrk run; run took 1.0 min\n\n{table}\n")


def test_the_latest_table_shows_each_case_from_the_newest_full_run_that_measured_it(tmp_path):
    from bench.latest import END, START, refresh

    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        f"# Benchmarks\n\n{START}\nstale\n{END}\n\n# Results\n"
        + _run("2026-01-01 10:00", "a,b", "aaa1111", ["| a | store / minimal | 0.90 | 0.8–1.0 | >= 0.7 | pass |",
                                                        "| b | gate cost | 12% | 10%–14% | <= 15% | pass |"])
        + _run("2026-01-02 10:00", "b", "bbb2222", ["| b | gate cost | 9% | 8%–10% | <= 15% | pass |"])
        + _run("2026-01-03 10:00", "a", "ccc3333", ["| a | store / minimal | 0.10 | 0.1–0.1 | >= 0.7 | **FAIL** |"],
               mode="quick")
        + "\n## A study beside the runs\n\n| a | not a run's row | x | y | z | w |\n"
    )

    refresh(doc)

    text = doc.read_text()
    block = text[text.index(START) + len(START):text.index(END)].strip().splitlines()
    assert block[2:] == [
        "| a | store / minimal | 0.90 | >= 0.7 | pass | 2026-01-01 10:00 UTC | aaa1111 |",
        "| b | gate cost | 9% | <= 15% | pass | 2026-01-02 10:00 UTC | bbb2222 |",
    ]
    assert text.endswith("| a | not a run's row | x | y | z | w |\n")  # the journal is untouched
    refresh(doc)
    assert doc.read_text() == text  # rebuilding twice changes nothing
