"""Every setting of Creator Relay, read once from ``RELAY_*`` environment variables.

The only module that reads the environment: processes build one ``Settings`` at start-up
(``Settings.from_env()``) and pass it down; tests build their own (``Settings(...)``,
``Settings.from_env({...})``) and never touch ``os.environ``. Each field declares its
variable, its parser and its description: the README's configuration table and the
compose file test are derived from here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app import setting_values as rules
from app.crypto.keys import is_fernet_key, secret_key_list
from app.setting_values import (
    PLAIN_PARSERS,
    SettingsError,
    boolean,
    boolean_or_auto,
    durations_text,
    env_name,
    field_problems,
    optional_str,
    problems_message,
    read_env,
    secret_keys_text,
)


def _setting(default: Any, doc: str, parse: Callable[[str], Any] | None = None, *, secret: bool = False,
             check: Callable[[Any], str | None] | None = None) -> Any:
    """Declare a setting: its default, its description, how to parse its variable and the
    rule its value keeps (``check``, from ``app.setting_values``).

    A ``secret`` setting is left out of the settings' repr, and its value out of every message.
    ``int`` and ``float`` parse with plain-worded messages (``app.setting_values``)."""
    parse = PLAIN_PARSERS.get(parse, parse)
    metadata = {"doc": doc, "parse": parse, "secret": secret, "check": check}
    return field(default=default, repr=not secret, metadata=metadata)


@dataclass(frozen=True, slots=True)
class Settings:
    # --- storage -----------------------------------------------------------------
    database_url: str | None = _setting(
        None,
        "PostgreSQL URL (postgresql://user:pass@host:port/db). Unset: an embedded "
        "PostgreSQL is started with its data under RELAY_DATA_DIR.",
        optional_str, check=rules.postgresql_url,
    )
    database_read_url: str | None = _setting(
        None,
        "PostgreSQL URL the API's store reads go to (a streaming read replica); the gate, "
        "write-backs and the workers use RELAY_DATABASE_URL. Unset: store reads use it too.",
        optional_str, check=rules.postgresql_url,
    )
    citus_direct_reads: bool = _setting(True, "On a Citus coordinator: each account's store reads go "
        "straight to the worker holding it, each API process keeping a pool (RELAY_DB_POOL_MIN..MAX) per "
        "worker, at the address the coordinator registered (docs/scaling.md). false: every read through "
        "the coordinator.", boolean)
    data_dir: Path = _setting(
        Path(".relay"), "Local state directory (embedded PostgreSQL data, demo files).", Path
    )
    secret_keys: str = _setting(
        "",
        "Keys that encrypt upstream credentials and webhook signing secrets in the database: "
        "comma-separated Fernet keys (`relay secrets generate-key`); the first encrypts, all "
        "decrypt (rotation: docs/operations.md). Required with RELAY_DATABASE_URL; unset with "
        "the embedded database: a key created in RELAY_DATA_DIR/secret_keys on first run.",
        secret_keys_text,
        secret=True,
    )
    db_pool_min: int = _setting(2, "Minimum connections in each process's pool.", int, check=rules.positive)
    db_pool_max: int = _setting(10, "Maximum connections in each process's pool.", int, check=rules.positive)
    db_wait_timeout: float = _setting(1.0, "Longest wait for a database connection (a pool checkout, the "
        "meter's reconnect) before a request answers 503 database_unavailable (seconds).", float,
        check=rules.positive)
    # On the API process's connections (app/db/pool.py); 0: off, as in PostgreSQL.
    db_statement_timeout: float = _setting(30.0, "Longest statement on an API connection "
        "(seconds; PostgreSQL's statement_timeout): then it is cancelled and the request fails. 0: none.", float,
        check=rules.non_negative)
    db_idle_in_transaction_timeout: float = _setting(10.0, "Longest an API connection may sit idle "
        "inside a transaction (seconds; PostgreSQL's idle_in_transaction_session_timeout): then "
        "the server ends its session. 0: none.", float, check=rules.non_negative)
    ledger_interval: float = _setting(0.025, "Seconds between two writes of an API process's usage-ledger "
        "rows (sooner when 1,000 wait): how late a row lands, how much a process that dies loses at most, "
        "and, plus 1.5 s, how long a request at a limit may wait for allowances out.", float, check=rules.positive)

    # --- API ---------------------------------------------------------------------
    api_host: str = _setting("127.0.0.1", "Address the API binds to.", str)
    api_port: int = _setting(8000, "Port the API binds to.", int, check=rules.port)
    api_workers: int = _setting(1, "API worker processes started by `relay serve`.", int, check=rules.positive)
    default_limit_minute: int = _setting(
        1000, "Requests per minute given to a new organization.", int, check=rules.positive,
    )
    default_limit_day: int = _setting(50000, "Requests per day given to a new organization.", int, check=rules.positive)
    default_credits: int = _setting(1000, "Credits a new organization starts with, so its first calls "
                                    "answer (`relay orgs create --credits N` overrides it).", int, check=rules.non_negative)
    api_metrics_port: int = _setting(
        0,
        "Port `relay serve` serves the API's Prometheus metrics on (all its processes summed; "
        "any path, e.g. /metrics), on RELAY_API_HOST. 0: not served.",
        int, check=rules.port_or_off,
    )
    max_body_bytes: int = _setting(
        1024, "Largest request body accepted (bytes); larger bodies get 413.", int, check=rules.positive,
    )
    feed_window_max_days: int = _setting(
        36525,
        "Longest date window (days, end minus start) of the paged feeds: earnings, "
        "direct-messages, reach/promotions, chargebacks, payout requests; longer is a 400. "
        "Default: 100 years (start_date=1970-01-01 works).",
        int, check=rules.window_days,
    )
    chart_window_max_days: int = _setting(
        9132,
        "Longest date window (days) of the monthly-bucketed aggregates: earnings chart and "
        "overview, reach/profile-visitors. Default: 25 years (a full-lifetime chart).",
        int, check=rules.window_days,
    )
    daily_window_max_days: int = _setting(
        3660,
        "Longest date window (days) of the routes that answer one entry per day: campaigns "
        "overview and chart, tracking-link stats (when both dates are given). Default: 10 years.",
        int, check=rules.window_days,
    )
    status_cache_seconds: float = _setting(
        10.0, "GET /status reuses an organization's sync rows and chart this long per API process "
        "(seconds): one read per organization in that time. 0: read on every view.", float, check=rules.non_negative,
    )
    status_session_seconds: int = _setting(
        900, "A browser's sign-in to GET /status (an admin key entered on its sign-in page) lasts "
        "this long (seconds); revoking or expiring the key ends it at once.", int, check=rules.positive,
    )
    status_cookie_secure: bool = _setting(
        False, "Mark the /status session cookie Secure even when the API itself is reached over "
        "plain HTTP (set behind a TLS-terminating proxy); over https it is always Secure.", boolean,
    )

    # Limits at the edge (app/edge.py; how to size them: docs/operations.md).
    api_max_request_line_bytes: int = _setting(8192, "Longest request line (method, path with "
        "query string, version), bytes; longer: 414 and the connection closed.", int, check=rules.positive)
    api_max_header_bytes: int = _setting(8192, "Longest header line (name and value), bytes; "
        "longer: 431 and the connection closed.", int, check=rules.positive)
    api_max_head_bytes: int = _setting(32768, "Largest request head (request line and all header "
        "lines together), bytes; larger: 431 and the connection closed.", int, check=rules.positive)
    api_head_timeout: float = _setting(10.0, "Longest wait for a request's line and headers "
        "(seconds) from the connection's opening, or from the request's first byte on a "
        "kept-alive connection; then 408 and the connection closed.", float, check=rules.positive)
    api_body_timeout: float = _setting(10.0, "Longest wait for a request's body once its "
        "headers are in (seconds); then the connection is closed.", float, check=rules.positive)
    api_keep_alive_timeout: float = _setting(5.0, "How long an idle kept-alive connection "
        "stays open between requests (seconds).", float, check=rules.positive)
    api_max_connections: int = _setting(1000, "Connections one API process serves at once "
        "(requests still running for clients gone count too); requests on further ones: 503 "
        "connection_limit with Retry-After, connection closed.", int, check=rules.positive)

    # Fair shares: what one organization holds at once in one API process (app/gate/shares.py;
    # how to size them: docs/operations.md); past one, 429 concurrency_limit with Retry-After.
    org_share_exports: int = _setting(2, "Exports one organization streams at once from one API "
        "process; past a share: 429 concurrency_limit (sizing: docs/operations.md, \"Fair shares\").", int,
        check=rules.positive)
    org_share_live_calls: int = _setting(16, "Upstream calls one organization's live answers have "
        "in flight at once in one API process (of its 100 pooled upstream connections).", int,
        check=rules.positive)
    org_share_expensive_reads: int = _setting(4, "Aggregate reads (earnings chart, campaigns "
        "overview and chart, tracking-link stats) one organization runs at once in one API process.", int,
        check=rules.positive)
    org_share_deferred: int = _setting(64, "Requests of one organization one API process holds at once "
        "while they wait, at a rate limit or a spent balance, for allowances out to end (docs/api-decisions.md, "
        "\"Allowances\"); past it they are answered at once.", int, check=rules.positive)

    api_shutdown_timeout: float = _setting(
        10.0,
        "On SIGTERM, relay serve stops accepting connections and lets requests in flight "
        "finish for at most this long (seconds) before it cancels them.",
        float, check=rules.positive,
    )
    api_gc_young_threshold: int = _setting(10_000, "Objects an API process allocates, net of those freed, before "
        "its garbage collector runs (Python's default: 700, a tenth of the time of a process serving 128 "
        "connections; docs/benchmarks.md): the most cyclic garbage it holds unfreed.", int, check=rules.positive)

    # --- upstream ------------------------------------------------------------------
    upstream_url: str = _setting(
        "http://127.0.0.1:8700", "Base URL of the upstream creator platform (or the sandbox).", str, check=rules.http_url,
    )
    upstream_connect_timeout: float = _setting(3.0, "Upstream connect timeout (seconds).", float, check=rules.positive)
    upstream_read_timeout: float = _setting(15.0, "Upstream read timeout (seconds).", float, check=rules.positive)
    upstream_max_attempts: int = _setting(
        5, "Attempts per upstream call (first try plus retries).", int, check=rules.positive,
    )
    upstream_backoff_base: float = _setting(
        0.2, "First retry delay (seconds); doubles per attempt, with full jitter.", float, check=rules.non_negative,
    )
    upstream_backoff_max: float = _setting(10.0, "Longest delay between two attempts (seconds).", float, check=rules.non_negative)
    upstream_concurrency_per_account: int = _setting(
        4, "Upstream requests in flight at once for one account.", int, check=rules.positive,
    )
    upstream_breaker_failures: int = _setting(
        5, "Consecutive failed calls that open an account's circuit breaker.", int, check=rules.positive,
    )
    upstream_live_deadline: float = _setting(
        10.0,
        "Total time one API call to the upstream may take across all its attempts and waits "
        "(seconds); past it the API answers 424 upstream_timeout. Workers have no deadline.",
        float, check=rules.positive,
    )
    upstream_breaker_reset: float = _setting(
        30.0, "Seconds an open circuit breaker waits before letting one call through.", float, check=rules.positive,
    )

    # --- sandbox upstream ----------------------------------------------------------
    sandbox_host: str = _setting("127.0.0.1", "Address the sandbox upstream binds to.", str)
    sandbox_port: int = _setting(8700, "Port the sandbox upstream binds to.", int, check=rules.port)
    sandbox_seed: int = _setting(7, "Seed of the sandbox's deterministic data.", int)
    sandbox_epoch: int | None = _setting(
        None,
        "Sandbox sizing epoch (unix seconds): an account's configured history ends there. "
        "Unset: the start of the UTC day the sandbox starts.",
        int,
    )
    sandbox_earnings: int = _setting(3000, "Sandbox earnings rows per account in its history.", int, check=rules.non_negative)
    sandbox_history_days: float = _setting(
        365.0, "Length of each sandbox account's history (days).", float, check=rules.positive,
    )
    sandbox_rate_limit_rps: float = _setting(
        0.0, "Sandbox requests per second per account before 429 (0: no limit).", float, check=rules.non_negative,
    )
    sandbox_rate_limit_burst: int = _setting(
        0, "Sandbox rate-limit burst (0: same as the rate).", int, check=rules.non_negative,
    )
    sandbox_latency_ms: int = _setting(0, "Latency the sandbox adds to every request (ms).", int, check=rules.non_negative)
    sandbox_error_rate: float = _setting(0.0, "Fraction of sandbox requests answered 503.", float, check=rules.fraction)
    sandbox_rate_limit_rate: float = _setting(
        0.0, "Fraction of sandbox requests answered 429 with Retry-After.", float, check=rules.fraction,
    )
    sandbox_timeout_rate: float = _setting(
        0.0, "Fraction of sandbox requests that hang before answering.", float, check=rules.fraction,
    )
    sandbox_truncate_rate: float = _setting(
        0.0, "Fraction of sandbox responses whose body is cut mid-way.", float, check=rules.fraction,
    )
    sandbox_timeout_seconds: float = _setting(
        30.0, "How long a sandbox timeout fault hangs (seconds).", float, check=rules.positive,
    )

    # --- sync workers ------------------------------------------------------------
    worker_id: str | None = _setting(
        None, "Name this worker leaves on its leases and runs (default host:pid).", optional_str
    )
    worker_metrics_port: int = _setting(
        0, "Port `relay worker` serves its Prometheus metrics on (127.0.0.1 unless "
        "RELAY_WORKER_METRICS_HOST says otherwise). 0: not served.", int, check=rules.port_or_off,
    )
    worker_metrics_host: str = _setting("127.0.0.1", "Address the worker's metrics port binds to.", str)
    sync_intervals: str = _setting(
        "",
        "Overrides of the head interval per resource, as resource=duration pairs (units s, "
        "m, h, d), e.g. earnings=30s,posts=5m: how often one cheap request asks the upstream "
        "whether the resource has new rows (the partitioned passes run only when it has). "
        "Defaults per resource: docs/sync.md.",
        durations_text, check=rules.durations,
    )
    sync_lookback_intervals: str = _setting(
        "",
        "Overrides of the lookback interval per resource (resource=duration): how often the "
        "lookback window is re-read for values that change late (earnings status, payout "
        "state), measured on the upstream's clock. Defaults per resource: docs/sync.md.",
        durations_text, check=rules.durations,
    )
    sync_lookbacks: str = _setting(
        "",
        "Overrides of the lookback window per resource (resource=duration): how much before "
        "its coverage end each lookback re-read reads again, so values that still change "
        "(earnings status, payout state) reach the store. Defaults: docs/sync.md.",
        durations_text, check=rules.durations,
    )
    sync_lease_seconds: int = _setting(60, "Lease on one (account, resource) task; the holder's heartbeat "
                                       "extends it.", int, check=rules.positive)
    sync_page_size: int = _setting(1000, "Rows asked per upstream page (capped by each endpoint's own "
                                   "maximum).", int, check=rules.positive)
    sync_prefetch_pages: int = _setting(4, "Pages fetched ahead of the writer per task (memory is about "
                                        "this many pages).", int, check=rules.positive)
    sync_staging_vacuum_rows: int = _setting(50_000, "Rows a sync process writes (stages) between its own "
        "vacuums of the page staging tables, which bounds their dead rows on disk to about this many per "
        "process (docs/sync.md). 0: leave them to autovacuum.", int, check=rules.non_negative)
    sync_initial_backfill: bool = _setting(
        True,
        "Backfill a newly connected account's whole history (false: only sync forward from "
        "its first incremental pass; backfill by hand with `relay sync backfill`).",
        boolean,
    )
    sync_tick_seconds: float = _setting(
        10.0, "How often each worker's clock (APScheduler) enqueues missing sync tasks.", float, check=rules.positive,
    )
    sync_poll_seconds: float = _setting(
        1.0, "How long an idle worker waits before looking for claimable tasks again.", float, check=rules.positive,
    )
    sync_worker_concurrency: int = _setting(
        4, "Tasks (account, resource) one worker process runs at once; also its schedule runs at once.", int, check=rules.positive,
    )
    sync_backfill_slice_seconds: float = _setting(
        60.0,
        "Longest a task holder spends on backfill pages before releasing the task, so the "
        "incremental sync of the same (account, resource) keeps its interval.",
        float, check=rules.positive,
    )
    sync_retry_max_seconds: float = _setting(
        900.0, "Longest wait before a failed task is retried (it doubles per failure).", float, check=rules.positive,
    )
    sync_clock: str = _setting(
        "system",
        "Where sync reads the upstream's current time: system (the machine clock) or "
        "sandbox (the sandbox upstream's controllable clock; tests, and `relay demo`'s worker "
        "unless this is set).",
        str, check=rules.one_of("system", "sandbox"),
    )
    backfill_requests_per_second: float = _setting(
        10.0, "Upstream requests per second one process spends on backfill (0: unpaced).", float, check=rules.non_negative,
    )
    sync_upstream_rps: float = _setting(
        10.0,
        "Upstream requests per second per account that all sync workers together may make "
        "(a token bucket in PostgreSQL; backfills take only spare slots). Set it to the "
        "upstream's per-account rate limit. 0: no budget.",
        float, check=rules.non_negative,
    )

    # --- events, webhooks, exports (docs/events.md) -------------------------------
    events_retention_days: int = _setting(
        30, "Days an event stays in the outbox (the feed and redelivery reach this far back).", int, check=rules.positive,
    )
    webhook_log_retention_days: int = _setting(7, "Days the webhook delivery log is kept.", int, check=rules.positive)
    webhook_retry_hours: float = _setting(24.0, "How long an endpoint's failing event is retried (exponential "
        "backoff with jitter) before the endpoint is disabled.", float, check=rules.positive)
    webhook_connect_timeout: float = _setting(5.0, "Webhook delivery connect timeout, DNS included (seconds).", float, check=rules.positive)
    webhook_timeout: float = _setting(10.0, "Webhook delivery total time per attempt (seconds).", float, check=rules.positive)
    webhook_concurrency: int = _setting(
        8, "Endpoints one worker process delivers to at once (each in order, independently).", int, check=rules.positive,
    )
    webhook_poll_seconds: float = _setting(1.0, "How often an idle dispatcher looks for due deliveries.", float, check=rules.positive)
    webhook_allow_private_addresses: bool = _setting(
        False, "Deliver webhooks to loopback, private, link-local and other non-public addresses "
        "too (development, the sandbox, receivers on a private network). Off: public addresses only, "
        "checked on each address connected to.", boolean,
    )
    webhook_max_answer_bytes: int = _setting(
        8192, "Longest receiver answer body read (bytes); a longer one fails the attempt.", int, check=rules.positive,
    )
    export_batch_rows: int = _setting(
        10000, "Rows an export reads per fetch (and per Parquet row group); bounds its memory.", int, check=rules.positive,
    )
    export_send_timeout: float = _setting(60.0, "Longest an export waits for its client to take "
        "the next batch (seconds); then it ends, unfinished, and the connection is closed.", float,
        check=rules.positive)

    # --- logging -------------------------------------------------------------------
    log_level: str | None = _setting(None, "Log level (DEBUG, INFO, WARNING, ERROR). Unset: INFO for `relay serve`, "
                                      "`worker`, `sandbox`; WARNING for other commands and `relay demo`.", optional_str, check=rules.log_level)
    log_json: bool | None = _setting(None, "Log format: true: JSON lines; false: readable lines; unset or "
                                     "auto: readable on a terminal, JSON lines otherwise.", boolean_or_auto)
    access_log: bool = _setting(False, "One INFO line per API request (`request_finished`: id, route, method, "
                                "status, source, ms); off: DEBUG, for its cost (docs/operations.md).", boolean)

    # -----------------------------------------------------------------------------
    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read every ``RELAY_*`` variable, validate, and return the settings (every problem
        reported at once: ``app.setting_values.read_env``)."""
        return cls(**read_env(cls, os.environ if env is None else env, cls._between))

    def __post_init__(self) -> None:
        problems = [*field_problems(Settings, self), *self._between(self)]
        if problems:
            raise SettingsError(problems_message(problems))

    @staticmethod
    def _between(values: Any) -> Iterator[str]:
        """The rules between settings (each setting's own: its ``check``)."""
        for part in ("api_max_request_line_bytes", "api_max_header_bytes"):
            if getattr(values, part) > values.api_max_head_bytes:
                yield f"{env_name(part)} must not exceed {env_name('api_max_head_bytes')}"
        if values.db_pool_min > values.db_pool_max:
            yield f"{env_name('db_pool_min')} must not exceed {env_name('db_pool_max')}"
        keys = secret_key_list(values.secret_keys)
        for position, key in enumerate(keys, start=1):
            if not is_fernet_key(key):  # by position: the value itself is never shown
                yield (f"{env_name('secret_keys')}: key {position} of {len(keys)} is not a Fernet key "
                       "(44 characters of url-safe base64; `relay secrets generate-key` prints one)")

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

