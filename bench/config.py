"""What one ``make bench`` run does: cases, rounds, durations and sizes, read from the environment.

``BENCH_QUICK=1`` shrinks everything for development (rows, rounds, run length);
``BENCH_CASES=a,b`` runs only those cases (letters as in docs/benchmarks.md);
``BENCH_CONTROL=0`` leaves out the controls: case a's second copy of the minimal app
measured beside the first, case b's route without the gate run twice a round (on by default
in full runs, off in quick ones). For a scaling
curve on a larger machine, ``BENCH_PROCESSES=1,2,4,8``, ``BENCH_CONNECTIONS=64,256``,
``BENCH_WRK_THREADS=4`` and ``BENCH_EARNINGS_ROWS`` change case a's grid, the load
generator and the serving data set; ``BENCH_CITUS_WORKERS`` case h's cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CASES = {
    "a": "serving: store page vs the minimal app",
    "b": "the gate's cost",
    "c": "live relay with 150 ms upstream latency",
    "d": "sync backfill vs raw COPY-and-merge",
    "e": "page 10,000 vs page 1",
    "f": "two-year earnings chart",
    "g": "freshness",
    "h": "Citus cluster vs one PostgreSQL: store page and backfill",
}
#: Cases that read the serving data set (one account synced from the sandbox).
SERVING_CASES = frozenset("abcef")

#: The fewest rounds of a comparison that single 5-second rounds cannot settle: case b's
#: cost (about a tenth of either side) and case a's at few connections (``FEW_CONNECTIONS``).
MIN_ROUNDS_CLOSE = 6
#: Case a at this many connections or fewer: one run holds the fewest tail samples, and one
#: scheduler hiccup on a 2-core machine moves its p99 by a third (the A/A control's median
#: there ranged 0.82 to 1.58 over the full runs in docs/benchmarks.md).
FEW_CONNECTIONS = 8


@dataclass(frozen=True)
class BenchConfig:
    quick: bool
    cases: tuple[str, ...]
    rounds: int
    seconds: int  # length of one wrk run
    earnings_rows: int  # the serving account's earnings history
    deep_page: int  # the deep page of case e (pages of 10 rows)
    backfill_rows: int  # case d
    connections: tuple[int, ...] = (1, 8, 32, 128)
    processes: tuple[int, ...] = (1, 2)
    wrk_threads: int = 2  # at most this many load-generator threads (a 2-core machine: 2)
    freshness_timeout: float = 420.0
    citus_rows: int = 50_000  # case h: earnings rows per account (and a tenth as many chargebacks and posts)
    citus_accounts: int = 4  # case h
    citus_workers: int = 2  # case h: the cluster's workers (beside its coordinator)
    #: Case a also measures an identical copy of the minimal app against it, case b its open
    #: route twice (A/A runs): how far two runs of one thing differ here, beside every ratio.
    control: bool = False

    @property
    def close_rounds(self) -> int:
        """Rounds of a comparison single rounds cannot settle: ``rounds``, at least ``MIN_ROUNDS_CLOSE``."""
        return max(self.rounds, MIN_ROUNDS_CLOSE)

    def rounds_at(self, connections: int) -> int:
        """Rounds of case a's comparison at ``connections``: ``close_rounds`` at
        ``FEW_CONNECTIONS`` or fewer, else ``rounds``."""
        return self.close_rounds if connections <= FEW_CONNECTIONS else self.rounds

    @property
    def paged_rows(self) -> int:
        """Chargebacks and posts in the serving account: enough rows for the deep page, and a
        quarter more (the posts feed leaves archived posts out)."""
        return self.deep_page * 10 * 5 // 4

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> BenchConfig:
        quick = flag(env, "BENCH_QUICK", False)
        wanted = tuple(sorted({c.strip().lower() for c in env.get("BENCH_CASES", "").split(",") if c.strip()}))
        unknown = [c for c in wanted if c not in CASES]
        if unknown:
            raise ValueError(f"BENCH_CASES: unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
        # Keyword arguments of the config (ints here, tuples in grid).
        sizes: dict[str, Any]
        if quick:
            sizes = dict(rounds=3, seconds=2, earnings_rows=50_000, deep_page=500, backfill_rows=50_000,
                         citus_rows=5_000, citus_accounts=2)
        else:
            sizes = dict(rounds=3, seconds=5, earnings_rows=1_000_000, deep_page=10_000, backfill_rows=1_000_000,
                         citus_rows=50_000, citus_accounts=4)
        for name in ("rounds", "seconds", "earnings_rows"):
            sizes[name] = int(env.get(f"BENCH_{name.upper()}", sizes[name]))
        if sizes["rounds"] < 1 or sizes["seconds"] < 1 or sizes["earnings_rows"] < 1000:
            raise ValueError("BENCH_ROUNDS and BENCH_SECONDS must be at least 1, BENCH_EARNINGS_ROWS at least 1000")
        grid: dict[str, Any] = {name: _counts(env, f"BENCH_{name.upper()}") for name in ("processes", "connections")}
        threads = int(env.get("BENCH_WRK_THREADS", 2))
        if threads < 1:
            raise ValueError("BENCH_WRK_THREADS must be at least 1")
        citus_workers = int(env.get("BENCH_CITUS_WORKERS", 2))
        if citus_workers < 1:
            raise ValueError("BENCH_CITUS_WORKERS must be at least 1")
        timeout = float(env.get("BENCH_FRESHNESS_TIMEOUT", 420))
        return cls(quick=quick, cases=wanted or tuple(CASES), freshness_timeout=timeout, wrk_threads=threads,
                   citus_workers=citus_workers, control=flag(env, "BENCH_CONTROL", not quick),
                   **{name: counts for name, counts in grid.items() if counts}, **sizes)


def flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    """An on/off variable: unset is ``default``; empty, ``0`` and ``false`` are off."""
    if name not in env:
        return default
    return env[name] not in ("", "0", "false")


def _counts(env: Mapping[str, str], name: str) -> tuple[int, ...]:
    """A comma-separated list of positive whole numbers, in order; empty when unset."""
    raw = env.get(name, "")
    try:
        counts = tuple(sorted({int(part) for part in raw.split(",") if part.strip()}))
    except ValueError:
        raise ValueError(f"{name}: expected whole numbers separated by commas, got {raw!r}") from None
    if any(count < 1 for count in counts):
        raise ValueError(f"{name}: every count must be at least 1, got {raw!r}")
    return counts
