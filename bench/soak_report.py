"""What the soak reads and prints: resource samples over time, the books (credits told, ledger,
counters, balance), the sandbox's injected faults, and the verdicts.

Reading is kept apart from the traffic (bench/soak.py) so each figure has one definition:

- *told*: the ``X-Credits-Used`` headers the callers received, summed;
- *ledger*: the organization's ``usage_ledger`` rows that cost a credit (a 5xx or a request
  its client cut is on the ledger for none), and those debited;
- *counter*: the organization's day counter (``organizations.day_used``), its increase;
- *balance*: the decrease of ``organizations.credit_balance``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg

from app.db.rows import one

#: The soak's first minutes of traffic may still grow caches and pools; the flatness verdicts
#: compare the samples after them: at most WARMUP_SECONDS, at most a fifth of the soak.
WARMUP_SECONDS = 60.0
#: RSS counts as flat when its last sample is within this many MB of the first after warm-up.
RSS_FLAT_MB = 5.0


def rss_kb(root_pid: int) -> int:
    """Resident memory of a process and its children or group (uvicorn workers), from /proc."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            status = (entry / "status").read_text()
        except OSError:
            continue
        pid, ppid, pgid = int(entry.name), int(stat[1]), int(stat[2])
        if root_pid in (pid, ppid, pgid):
            total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total


def connections(conn: psycopg.Connection) -> dict[str, int]:
    """Connections to the run's database by application name (the monitor's own left out)."""
    rows = conn.execute(
        "SELECT coalesce(nullif(application_name, ''), '?'), count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1"
    ).fetchall()
    return dict(rows)


@dataclass(frozen=True)
class Sample:
    at: float  # seconds since the soak traffic began
    api_rss_kb: int
    worker_rss_kb: int
    pg: dict[str, int]

    @property
    def pg_total(self) -> int:
        return sum(self.pg.values())


@dataclass(frozen=True)
class Books:
    """The organization's metering at one moment."""

    balance: int
    day_used: int
    day_window: str
    ledger_rows: int  # those with a credit
    ledger_debited: int
    ledger_statuses: dict[str, int]  # status ("null": not recorded yet) -> rows
    sync_runs: dict[str, int]  # status -> runs

    @classmethod
    def read(cls, conn: psycopg.Connection, organization: str) -> Books:
        balance, day_used, day_window, org_id = one(conn.execute(
            "SELECT credit_balance, day_used, day_window::text, id FROM organizations WHERE name = %s",
            (organization,),
        ).fetchone())
        rows, debited = one(conn.execute(
            "SELECT count(*) FILTER (WHERE credits > 0), count(*) FILTER (WHERE debited) FROM usage_ledger "
            "WHERE organization_id = %s",
            (org_id,),
        ).fetchone())
        statuses = conn.execute(
            "SELECT coalesce(status::text, 'null'), count(*) FROM usage_ledger WHERE organization_id = %s"
            " GROUP BY 1 ORDER BY 1",
            (org_id,),
        ).fetchall()
        runs = conn.execute("SELECT status, count(*) FROM sync_runs GROUP BY 1 ORDER BY 1").fetchall()
        return cls(balance, day_used, str(day_window), rows, debited, dict(statuses), dict(runs))


def sandbox_counts(url: str) -> Counter[str]:
    """The sandbox's injected faults (``faults.<kind>``) and upstream requests (``requests``)."""
    stats = httpx.get(f"{url}/_sandbox/stats", timeout=10).json()
    requests = httpx.get(f"{url}/_sandbox/requests", timeout=10).json()
    counts = Counter({k: v for k, v in stats.items() if k.startswith("faults.")})
    counts["requests"] = sum(requests["requests"].values())
    counts["rate_limited"] = sum(requests["rate_limited"].values())
    return counts


@dataclass
class Tally:
    """What the callers of one phase saw."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)  # (route class, status; 0: no answer)
    reasons: Counter[tuple[str, int, str]] = field(default_factory=Counter)  # non-2xx: (class, status, why)
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"store": [], "live": []})
    credits_told: int = 0
    shed: int = 0  # due while MAX_IN_FLIGHT requests were waiting: not sent
    cancelled: int = 0  # still unanswered when the drain bound ran out

    @property
    def sent(self) -> int:
        return sum(self.statuses.values()) + self.cancelled

    @property
    def server_errors(self) -> int:
        return sum(n for (_, status), n in self.statuses.items() if status >= 500)

    @property
    def unanswered(self) -> int:
        return sum(n for (_, status), n in self.statuses.items() if status == 0) + self.cancelled


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def after_warmup(samples: list[Sample], soak_seconds: float) -> list[Sample]:
    warmup = min(WARMUP_SECONDS, soak_seconds / 5)
    later = [s for s in samples if s.at >= warmup]
    return later or samples[-1:]


def flatness(samples: list[Sample], soak_seconds: float) -> dict[str, dict]:
    """Per series, after warm-up: first, last, min, max, and whether it is flat."""
    later = after_warmup(samples, soak_seconds)
    series = {
        "api RSS MB": [s.api_rss_kb / 1024 for s in later],
        "worker RSS MB": [s.worker_rss_kb / 1024 for s in later],
        "PG connections": [float(s.pg_total) for s in later],
    }
    verdicts = {}
    for name, values in series.items():
        if not values:
            continue
        flat = values[-1] - values[0] <= RSS_FLAT_MB if "RSS" in name else max(values) == min(values)
        verdicts[name] = {"first": values[0], "last": values[-1], "min": min(values), "max": max(values),
                          "flat": flat, "from_s": later[0].at}
    return verdicts


def books_check(before: Books, after: Books, told: int) -> dict[str, int | bool]:
    ledger = after.ledger_rows - before.ledger_rows
    # A window the run did not open is counted from 0 (before the first request the org has
    # none); a run across midnight UTC would count only the new day's requests here.
    counter = after.day_used - (before.day_used if after.day_window == before.day_window else 0)
    balance = before.balance - after.balance
    debited = after.ledger_debited - before.ledger_debited
    return {"told": told, "ledger": ledger, "ledger_debited": debited, "counter": counter, "balance": balance,
            "equal": ledger == counter == balance == debited}


def print_report(summary: dict, soak: Tally, capacity: Tally, samples: list[Sample]) -> None:
    """The figures, for a person to read and to copy into docs/benchmarks.md."""
    print(f"\n== soak {summary['minutes']:g} min at {summary['rate']:.0f} req/s "
          f"(capacity {summary['capacity']:.0f} req/s x {summary['load']:g}); logs in {summary['logs']}")
    print(f"sent {soak.sent} ({summary['achieved']:.1f} req/s), shed over the in-flight cap {soak.shed}, "
          f"unanswered {soak.unanswered} (cancelled at the end {soak.cancelled})")
    print(f"5xx: {soak.server_errors} in the soak, {capacity.server_errors} in the capacity probe")
    print("requests by route class and status (soak):")
    for (kind, status), count in sorted(soak.statuses.items()):
        print(f"  {kind:5} {status or 'no answer'}: {count}")
    for kind, values in soak.latencies.items():
        print(f"  {kind:5} latency p50 {percentile(values, 0.5) * 1000:.0f} ms, "
              f"p99 {percentile(values, 0.99) * 1000:.0f} ms, max {max(values, default=0) * 1000:.0f} ms, "
              f"{sum(v > 1.0 for v in values)} over 1 s")
    print("non-2xx answers and failures, with reasons (soak and capacity probe):")
    for (kind, status, why), count in sorted((soak.reasons + capacity.reasons).items()):
        print(f"  {kind:5} {status or 'no answer'} x{count}: {why}")
    faults = summary["sandbox_soak"]
    print(f"sandbox during the soak: {faults.get('requests', 0)} upstream requests, faults injected: "
          + (", ".join(f"{k.removeprefix('faults.')} {v}" for k, v in sorted(faults.items()) if k.startswith("faults."))
             or "none"))
    print(f"sandbox over the whole run: {json.dumps(summary['sandbox_run'], sort_keys=True)}")
    print(f"sync runs by status: {json.dumps(summary['sync_runs'], sort_keys=True)}")
    print("  t(s)  api RSS MB  worker RSS MB  PG connections (by application)")
    for s in samples:
        by_app = ", ".join(f"{name.removeprefix('creator-relay:')} {n}" for name, n in s.pg.items())
        print(f"  {s.at:5.0f}  {s.api_rss_kb / 1024:10.1f}  {s.worker_rss_kb / 1024:13.1f}  {s.pg_total:3d} ({by_app})")
    for name, v in summary["flatness"].items():
        print(f"  {name} after warm-up (from t={v['from_s']:.0f} s): first {v['first']:.1f}, last {v['last']:.1f}, "
              f"min {v['min']:.1f}, max {v['max']:.1f}: {'flat' if v['flat'] else 'NOT FLAT'}")
    books = summary["books"]
    print(f"credits: told {books['told']}, ledger {books['ledger']} (debited {books['ledger_debited']}), "
          f"day counter +{books['counter']}, balance -{books['balance']}: "
          + ("ledger = counter = balance" if books["equal"] else "MISMATCH"))
    if books["told"] != books["ledger"]:
        print(f"  told {books['ledger'] - books['told']} fewer than the ledger: requests metered whose caller got "
              f"no answer ({summary['unanswered']} unanswered in all)")
    print(f"ledger rows by status: {json.dumps(summary['ledger_statuses'], sort_keys=True)}; "
          f"callers saw: {json.dumps(summary['caller_statuses'], sort_keys=True)}")
    print(f"wall time {summary['wall_s']:.0f} s (expected about {summary['expected_s']:.0f} s); load average "
          f"{summary['load_before']} before, {summary['load_after']} after")
