"""What the scale benchmark (``bench.sync_scale``) measures while the workers run.

- :class:`Freshness`: how far the API's default earnings answer trails the upstream, read
  as a user reads it (``relay serve`` over HTTP with an API key) against the sandbox's own
  feed (read directly, never through ``fresh=true``: a live answer is written back into
  the store, so probing through the relay would itself make rows visible).
- :class:`ServerCpu`: CPU seconds of the PostgreSQL server (all its processes) and of the
  backends of the bench database, from ``/proc``.
- :class:`PassGaps`: per (account, resource), the longest time without a completed pass
  (``sync_state.last_success_at``), sampled each round: starvation shows here.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg

from app.db.rows import one
from app.upstream import paths

#: Most rows one sandbox read returns (the sandbox's largest page).
SANDBOX_PAGE = 1000


def _unix(created_at: str) -> float:
    return datetime.fromisoformat(created_at).timestamp()


def _iso(unix: float) -> str:
    return datetime.fromtimestamp(int(unix), UTC).isoformat()


@dataclass
class Sample:
    """One freshness reading of one account."""

    lag: float  # age of the oldest upstream transaction missing from the default answer (0: none)
    source: str  # where the default answer came from (store or upstream)
    delays: list[float]  # transactions that turned visible since the last reading: their delays


@dataclass
class _Tracked:
    started: float | None = None  # sandbox time of the first reading: followed from then on
    read_at: float | None = None  # sandbox time of the previous reading
    pending: dict[str, float] = field(default_factory=dict)  # id -> createdAt, not yet visible


class Freshness:
    """Readings of the default earnings answer against the upstream, per account.

    A reading at sandbox time ``T``: the API's default ``/v1/{id}/earnings`` page (the ten
    newest rows the answer holds), then the sandbox's feed from that page's oldest row up
    to ``T``. Every upstream transaction created at or before ``T`` in that span and absent
    from the page is missing. The *lag* is the age of the oldest missing one.

    Accounts read every round are also followed per transaction, from their first reading
    on: a transaction created after it and seen missing is pending until a reading no longer
    finds it missing; its delay is that reading's time minus its ``createdAt`` (an upper
    bound, by at most the time between readings). One created and made visible between two
    readings counts with the same upper bound.
    """

    def __init__(self, api: httpx.Client, sandbox: httpx.Client, key: str) -> None:
        self.api = api
        self.sandbox = sandbox
        self.headers = {"Authorization": f"Bearer {key}"}
        self.tracked: dict[int, _Tracked] = defaultdict(_Tracked)
        self.upstream_reads: dict[int, int] = defaultdict(int)  # the bench's own sandbox requests

    def _now(self) -> float:
        """The sandbox's time (its control API; not an upstream request)."""
        return float(self.sandbox.get("/_sandbox/clock").raise_for_status().json()["now"])

    def _upstream_since(self, account_id: int, since: str | None, now: float) -> list[tuple[str, float]]:
        # An empty answer: the last hour is enough to find what it misses.
        params: dict[str, str | int] = {"order": "asc", "limit": SANDBOX_PAGE, "start_date": since or _iso(now - 3600)}
        self.upstream_reads[account_id] += 1
        answer = self.sandbox.get(paths.EARNINGS_TRANSACTIONS.format(account_id=account_id), params=params,
                                  headers={"Authorization": f"Bearer sandbox-{account_id}"})
        answer.raise_for_status()
        body = answer.json()
        rows = (body.get("data") or body)["list"]
        return [(str(row["id"]), _unix(row["createdAt"])) for row in rows]

    def read(self, account_id: int, follow: bool) -> Sample | None:
        """One reading; None when the API did not answer 200 (counted by the caller)."""
        read_at = self._now()
        default = self.api.get(f"/v1/{account_id}/earnings", headers=self.headers)
        if default.status_code != 200:
            return None
        body = default.json()
        page = body["data"]["list"]
        served = {str(row["id"]) for row in page}
        oldest = min((row["createdAt"] for row in page), default=None)
        floor = _unix(oldest) if oldest else float("-inf")
        upstream = [(i, t) for i, t in self._upstream_since(account_id, oldest, read_at) if t <= read_at]
        missing = {i: t for i, t in upstream if i not in served and t >= floor}
        lag = read_at - min(missing.values()) if missing else 0.0
        delays = self._follow(account_id, read_at, upstream, missing) if follow else []
        return Sample(max(0.0, lag), body["_meta"]["_cache"]["source"], delays)

    def _follow(self, account_id: int, read_at: float, upstream: list[tuple[str, float]],
                missing: dict[str, float]) -> list[float]:
        state = self.tracked[account_id]
        delays = []
        previous, started = state.read_at, state.started
        if previous is not None and started is not None:  # both set by the first reading
            for row_id, created in upstream:
                if row_id in missing:
                    continue
                if row_id in state.pending or created > previous:  # turned visible since
                    delays.append(read_at - created)
                    state.pending.pop(row_id, None)
            # Pending rows older than the page: newer rows are in the answer, so these are too.
            scanned = {row_id for row_id, _ in upstream}
            for row_id, created in list(state.pending.items()):
                if row_id not in scanned:
                    delays.append(read_at - created)
                    del state.pending[row_id]
            for row_id, created in missing.items():
                if created > started:
                    state.pending.setdefault(row_id, created)
        else:  # the first reading only starts the clock: what it finds missing was created
            # before the window and is left out (a backlog left by the backfill would weigh in)
            state.started = read_at
        state.read_at = read_at
        return delays


class ServerCpu:
    """CPU seconds of the PostgreSQL server behind ``db`` and of one database's backends.

    The server's total is the postmaster's own time, its reaped children's (``cutime``,
    ``cstime``) and its live children's, so backends that come and go are all counted. On a
    server shared with other work the total includes that work (the report says which).
    """

    def __init__(self, db: psycopg.Connection) -> None:
        self.db = db
        self.ticks = os.sysconf("SC_CLK_TCK")
        (self.database, backend) = one(db.execute("SELECT current_database(), pg_backend_pid()").fetchone())
        stat = self._stat(backend)
        self.postmaster = stat[1] if stat else None
        self.first_backends: dict[int, float] = {}
        self.last_backends: dict[int, float] = {}
        self.server_start = self._server_total()
        self.server_end = self.server_start

    @staticmethod
    def _stat(pid: int) -> tuple[list[str], int] | None:
        """(fields after the command, parent pid) of ``/proc/PID/stat``."""
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return fields, int(fields[1])

    def _seconds(self, fields: list[str], children: bool = False) -> float:
        used = int(fields[11]) + int(fields[12])  # utime, stime
        if children:
            used += int(fields[13]) + int(fields[14])  # cutime, cstime
        return used / self.ticks

    def _server_total(self) -> float | None:
        if self.postmaster is None:
            return None
        own = self._stat(self.postmaster)
        if own is None:
            return None
        total = self._seconds(own[0], children=True)
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                found = self._stat(int(entry.name))
                if found and found[1] == self.postmaster:
                    total += self._seconds(found[0])
        return total

    def sample(self) -> None:
        pids = [r[0] for r in self.db.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,))]
        for pid in pids:
            found = self._stat(pid)
            if found is not None:
                cpu = self._seconds(found[0])
                self.first_backends.setdefault(pid, cpu)
                self.last_backends[pid] = cpu
        self.server_end = self._server_total()

    def backends_seconds(self) -> float:
        return sum(self.last_backends[p] - self.first_backends[p] for p in self.last_backends)

    def server_seconds(self) -> float | None:
        if self.server_start is None or self.server_end is None:
            return None
        return self.server_end - self.server_start


class PassGaps:
    """Per (account, resource): the longest time without a completed pass, from the
    previous completion (possibly before the window) to the next, or to the window's end."""

    def __init__(self, db: psycopg.Connection) -> None:
        self.db = db
        self.last: dict[tuple[int, str], float] = {}
        self.longest: dict[tuple[int, str], float] = defaultdict(float)
        self.passes: dict[tuple[int, str], int] = defaultdict(int)
        self.started = self._now()

    def _now(self) -> float:
        return one(self.db.execute("SELECT extract(epoch FROM now())::float").fetchone())[0]

    def sample(self) -> None:
        rows = self.db.execute(
            "SELECT account_id, resource, extract(epoch FROM last_success_at)::float FROM sync_state"
        ).fetchall()
        for account_id, resource, done in rows:
            key = (account_id, resource)
            previous = self.last.get(key)
            if done is None or done == previous:
                continue
            if previous is not None:
                self.longest[key] = max(self.longest[key], done - previous)
                self.passes[key] += 1
            self.last[key] = done

    def by_resource(self) -> dict[str, dict[str, float]]:
        """Per resource: passes per pair, and the p95 and max (seconds) over pairs of each
        pair's longest gap, counting the open gap up to now."""
        self.sample()
        now = self._now()
        gaps: dict[str, list[float]] = defaultdict(list)
        passes: dict[str, list[int]] = defaultdict(list)
        for key, done in self.last.items():
            gaps[key[1]].append(max(self.longest[key], now - done))
            passes[key[1]].append(self.passes[key])
        return {name: {"pairs": len(values), "passes": sum(passes[name]) / len(values),
                       "p95": percentile(values, 0.95), "max": max(values)}
                for name, values in sorted(gaps.items())}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
