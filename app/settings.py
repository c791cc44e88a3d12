"""Every setting of Creator Relay, read once from ``RELAY_*`` environment variables.

This is the only module that reads the environment. Processes build one
``Settings`` at start-up (``Settings.from_env()``) and pass it down; tests build
their own with ``Settings(...)`` or ``Settings.from_env({...})`` and never touch
``os.environ``.

Each field declares its variable, its parser and a one-line description, so the
README's configuration table and the compose file test are derived from here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

PREFIX = "RELAY_"


class SettingsError(ValueError):
    """Raised at start-up when one or more settings are invalid."""


def _bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected one of true/false/1/0/yes/no/on/off")


def _optional_str(raw: str) -> str | None:
    return raw.strip() or None


def _setting(default: Any, doc: str, parse: Callable[[str], Any] | None = None) -> Any:
    """Declare a setting: its default, its description and how to parse its variable."""
    return field(default=default, metadata={"doc": doc, "parse": parse})


@dataclass(frozen=True, slots=True)
class Settings:
    # --- storage -----------------------------------------------------------------
    database_url: str | None = _setting(
        None,
        "PostgreSQL URL (postgresql://user:pass@host:port/db). Unset: an embedded "
        "PostgreSQL is started with its data under RELAY_DATA_DIR.",
        _optional_str,
    )
    data_dir: Path = _setting(
        Path(".relay"), "Local state directory (embedded PostgreSQL data, demo files).", Path
    )
    db_pool_min: int = _setting(2, "Minimum connections in each process's pool.", int)
    db_pool_max: int = _setting(10, "Maximum connections in each process's pool.", int)

    # --- API ---------------------------------------------------------------------
    api_host: str = _setting("127.0.0.1", "Address the API binds to.", str)
    api_port: int = _setting(8000, "Port the API binds to.", int)
    api_workers: int = _setting(1, "API worker processes started by `relay serve`.", int)
    default_limit_minute: int = _setting(
        1000, "Requests per minute given to a new organization.", int
    )
    default_limit_day: int = _setting(50000, "Requests per day given to a new organization.", int)
    max_body_bytes: int = _setting(
        1024, "Largest request body accepted (bytes); larger bodies get 413.", int
    )

    # --- upstream ------------------------------------------------------------------
    upstream_url: str = _setting(
        "http://127.0.0.1:8700", "Base URL of the upstream creator platform (or the sandbox).", str
    )
    upstream_connect_timeout: float = _setting(3.0, "Upstream connect timeout (seconds).", float)
    upstream_read_timeout: float = _setting(15.0, "Upstream read timeout (seconds).", float)
    upstream_max_attempts: int = _setting(
        5, "Attempts per upstream call (first try plus retries).", int
    )
    upstream_backoff_base: float = _setting(
        0.2, "First retry delay (seconds); doubles per attempt, with full jitter.", float
    )
    upstream_backoff_max: float = _setting(10.0, "Longest delay between two attempts (seconds).", float)
    upstream_concurrency_per_account: int = _setting(
        4, "Upstream requests in flight at once for one account.", int
    )
    upstream_breaker_failures: int = _setting(
        5, "Consecutive failed calls that open an account's circuit breaker.", int
    )
    upstream_breaker_reset: float = _setting(
        30.0, "Seconds an open circuit breaker waits before letting one call through.", float
    )

    # --- sandbox upstream ----------------------------------------------------------
    sandbox_host: str = _setting("127.0.0.1", "Address the sandbox upstream binds to.", str)
    sandbox_port: int = _setting(8700, "Port the sandbox upstream binds to.", int)
    sandbox_seed: int = _setting(7, "Seed of the sandbox's deterministic data.", int)

    # --- sync workers ------------------------------------------------------------
    worker_id: str | None = _setting(
        None, "Name this worker leaves on its leases and runs (default host:pid).", _optional_str
    )

    # --- logging -------------------------------------------------------------------
    log_level: str = _setting("INFO", "Log level (DEBUG, INFO, WARNING, ERROR).", str)
    log_json: bool = _setting(True, "Structured JSON logs (false: human-readable lines).", _bool)

    # -----------------------------------------------------------------------------
    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read every ``RELAY_*`` variable, validate, and return the settings.

        All problems are collected and reported together.
        """
        source = os.environ if env is None else env
        values: dict[str, Any] = {}
        problems: list[str] = []
        for f in dataclasses.fields(cls):
            name = env_name(f.name)
            if name not in source:
                continue
            try:
                values[f.name] = f.metadata["parse"](source[name])
            except ValueError as exc:
                problems.append(f"{name}={source[name]!r}: {exc}")
        if problems:
            raise SettingsError("invalid settings: " + "; ".join(problems))
        return cls(**values)

    def __post_init__(self) -> None:
        problems = list(self._problems())
        if problems:
            raise SettingsError("invalid settings: " + "; ".join(problems))

    def _problems(self):
        if self.database_url is not None:
            scheme = urlsplit(self.database_url).scheme
            if scheme not in {"postgresql", "postgres", "postgresql+psycopg"}:
                yield f"{env_name('database_url')} must be a postgresql:// URL"
        for port_field in ("api_port", "sandbox_port"):
            if not 0 < getattr(self, port_field) < 65536:
                yield f"{env_name(port_field)} must be between 1 and 65535"
        if urlsplit(self.upstream_url).scheme not in {"http", "https"}:
            yield f"{env_name('upstream_url')} must be an http:// or https:// URL"
        positive = (
            "db_pool_min",
            "db_pool_max",
            "api_workers",
            "default_limit_minute",
            "default_limit_day",
            "max_body_bytes",
            "upstream_connect_timeout",
            "upstream_read_timeout",
            "upstream_max_attempts",
            "upstream_concurrency_per_account",
            "upstream_breaker_failures",
        )
        for name in positive:
            if getattr(self, name) <= 0:
                yield f"{env_name(name)} must be greater than 0"
        if self.db_pool_min > self.db_pool_max:
            yield f"{env_name('db_pool_min')} must not exceed {env_name('db_pool_max')}"
        if self.log_level.upper() not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            yield f"{env_name('log_level')} must be DEBUG, INFO, WARNING, ERROR or CRITICAL"

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def env_name(field_name: str) -> str:
    return PREFIX + field_name.upper()


def documented_settings() -> list[tuple[str, str, str]]:
    """(variable, default, description) for every setting: the README's configuration table."""
    rows = []
    for f in dataclasses.fields(Settings):
        default = "" if f.default is None else str(f.default)
        rows.append((env_name(f.name), default, f.metadata["doc"]))
    return rows
