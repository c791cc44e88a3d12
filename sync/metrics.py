"""The worker's Prometheus metrics, served by ``relay worker`` on RELAY_WORKER_METRICS_PORT.

Counters and the pass histogram are this process's own work. The gauges describe the whole
store as this worker last saw it (refreshed on every clock tick): with several workers each
reports the same values, so aggregate them with ``max``. Labels never name an account.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram
from psycopg import AsyncConnection
from psycopg.rows import dict_row

from app.db.models import ACCOUNT_STATUSES

SYNC_ROWS = Counter(
    "relay_sync_rows",
    "Rows the sync wrote, by resource and outcome (inserted, updated, unchanged).",
    ["resource", "outcome"],
)
SYNC_PASS_SECONDS = Histogram(
    "relay_sync_pass_duration_seconds",
    "Duration of one sync pass (a run of one kind on one account and resource).",
    ["resource", "kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300),
)
STAGING_VACUUMS = Counter(
    "relay_sync_staging_vacuums",
    "Vacuums of the page staging tables this process ran (sync/staging_vacuum.py), by outcome (done, failed).",
    ["outcome"],
)
HEAD_CHECKS = Counter(
    "relay_sync_head_checks",
    "Head checks by resource and outcome (news: the partitions were read; idle: the coverage "
    "moved forward for the check's request alone).",
    ["resource", "outcome"],
)
HEAD_REQUESTS = Counter(
    "relay_sync_head_requests", "Upstream requests made by head checks.", ["resource"]
)
COVERAGE_LAG = Gauge(
    "relay_sync_coverage_lag_seconds",
    "Now minus the coverage end (since it was connected, for an account never synced), across "
    "the active accounts of a resource: worst and p95.",
    ["resource", "stat"],
)
ACCOUNTS = Gauge(
    "relay_accounts",
    "Connected accounts by status (active; paused: disconnected; credentials_rejected: the "
    "upstream refused the credential, its sync is stopped until reconnected).",
    ["status"],
)
TASKS_DUE = Gauge("relay_sync_tasks_due", "Tasks whose due time has come and that nobody holds.", ["resource"])
LEASES_HELD = Gauge("relay_sync_leases_held", "Tasks held by a live lease (being run).", ["resource"])

_GAUGES_SQL = """
SELECT t.resource,
       count(*) FILTER (WHERE t.due_at <= now()
                          AND (t.lease_expires_at IS NULL OR t.lease_expires_at <= now())) AS due,
       count(*) FILTER (WHERE t.lease_expires_at > now()) AS held,
       max(extract(epoch FROM now() - coalesce(s.coverage_end, a.created_at))) AS lag_worst,
       percentile_cont(0.95) WITHIN GROUP (
           ORDER BY extract(epoch FROM now() - coalesce(s.coverage_end, a.created_at))) AS lag_p95
FROM sync_tasks t
JOIN accounts a ON a.id = t.account_id AND a.status = 'active'
LEFT JOIN sync_state s ON s.account_id = t.account_id AND s.resource = t.resource
GROUP BY t.resource
"""

_ACCOUNTS_SQL = "SELECT status, count(*) FROM accounts GROUP BY status"


def record_pass(resource: str, kind: str, seconds: float, inserted: int, updated: int, unchanged: int) -> None:
    SYNC_PASS_SECONDS.labels(resource, kind).observe(seconds)
    for outcome, count in (("inserted", inserted), ("updated", updated), ("unchanged", unchanged)):
        if count:
            SYNC_ROWS.labels(resource, outcome).inc(count)


def record_head_check(resource: str, *, news: bool, requests: int) -> None:
    HEAD_CHECKS.labels(resource, "news" if news else "idle").inc()
    if requests:
        HEAD_REQUESTS.labels(resource).inc(requests)


async def refresh_store_gauges(conn: AsyncConnection) -> None:
    """Tasks due, leases held and coverage lag per resource, read in one query; accounts
    per status in another."""
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(_GAUGES_SQL)
        rows = await cursor.fetchall()
    counts: dict[str, int] = dict(await (await conn.execute(_ACCOUNTS_SQL)).fetchall())
    for status in ACCOUNT_STATUSES:
        ACCOUNTS.labels(status).set(counts.get(status, 0))
    for row in rows:
        resource = row["resource"]
        TASKS_DUE.labels(resource).set(row["due"])
        LEASES_HELD.labels(resource).set(row["held"])
        # No active account: NaN, which Prometheus shows as "no value".
        COVERAGE_LAG.labels(resource, "worst").set(float("nan") if row["lag_worst"] is None else max(0.0, float(row["lag_worst"])))
        COVERAGE_LAG.labels(resource, "p95").set(float("nan") if row["lag_p95"] is None else max(0.0, float(row["lag_p95"])))


SCHEDULE_RUNS = Counter(
    "relay_schedule_runs",
    "Scheduled runs (relay schedules) this worker finished, by action and outcome "
    "(succeeded, failed).",
    ["action", "outcome"],
)
SCHEDULE_RUN_SECONDS = Histogram(
    "relay_schedule_run_duration_seconds",
    "Duration of one scheduled run, by action.",
    ["action"],
    buckets=(0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 14400),
)
SCHEDULE_ROWS = Counter(
    "relay_schedule_rows",
    "Rows of scheduled runs, by action and kind (read: read from the upstream, or exported; "
    "changed: inserted or updated).",
    ["action", "kind"],
)
SCHEDULES_DUE = Gauge("relay_schedules_due", "Schedules whose due time has come and that nobody runs.", ["action"])
SCHEDULES_FAILING = Gauge(
    "relay_schedules_failing", "Schedules whose last run failed and that wait for a retry.", ["action"]
)


def record_schedule_run(action: str, outcome: str, seconds: float, read: int, changed: int) -> None:
    SCHEDULE_RUNS.labels(action, outcome).inc()
    SCHEDULE_RUN_SECONDS.labels(action).observe(seconds)
    for kind, count in (("read", read), ("changed", changed)):
        if count:
            SCHEDULE_ROWS.labels(action, kind).inc(count)


def set_schedule_gauges(rows: list[dict]) -> None:
    """From ``sync.schedules.store.gauges``: one row per action that has schedules."""
    for row in rows:
        SCHEDULES_DUE.labels(row["action"]).set(row["due"])
        SCHEDULES_FAILING.labels(row["action"]).set(row["failing"])
