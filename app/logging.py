"""One logging set-up for every process (API, worker, sandbox, CLI), built on structlog.

Every record -- ours (``logger.info("event", extra={...})``), uvicorn's, APScheduler's,
Alembic's -- goes through the standard library's root logger and one structlog
``ProcessorFormatter``, so every line carries the same fields:

``ts`` (ISO 8601, UTC), ``level``, ``logger``, ``process`` (api, worker, sandbox, cli),
``pid``, ``event`` (the message), the ``extra`` fields, the request's ``request_id`` while
one is being served (bound with structlog's context variables), and ``exc`` for tracebacks.

JSON lines when stderr is not a terminal (pipes, files, containers) or with
``RELAY_LOG_JSON=true``; readable lines on a terminal or with ``RELAY_LOG_JSON=false``.
APScheduler's routine "Running job"/"executed successfully" records are demoted to DEBUG.
One-shot commands (``quiet``) write only warnings and errors: their output is what they print.
"""

from __future__ import annotations

import logging
import os
import sys

import structlog
from structlog.typing import EventDict, WrappedLogger

from app.settings import Settings

# Attributes every LogRecord has; anything else came from ``extra=`` and is a field.
_RECORD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "taskName",
    "_from_structlog",
    "_logger",
    "_name",
}

#: Loggers whose INFO records are routine (a line per scheduler tick, job bookkeeping): DEBUG.
ROUTINE_LOGGERS = ("apscheduler.executors.default", "apscheduler.scheduler")


def _extra_fields(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
    """Copy a stdlib record's ``extra={...}`` fields into the event."""
    record = event_dict.get("_record")
    if record is not None:
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRS and key not in event_dict:
                event_dict[key] = value
    return event_dict


def _process_fields(process: str):
    pid = os.getpid()

    def add(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
        event_dict.setdefault("process", process)
        event_dict["pid"] = pid  # read at configure time: each uvicorn worker configures itself
        return event_dict

    return add


def _rename_exception(logger: WrappedLogger, name: str, event_dict: EventDict) -> EventDict:
    if "exception" in event_dict:
        event_dict["exc"] = event_dict.pop("exception")
    return event_dict


class _DemoteRoutine(logging.Filter):
    """Lower a routine logger's INFO records to DEBUG (and drop them unless DEBUG is on)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger().isEnabledFor(logging.DEBUG)
        return True


def shared_processors(process: str) -> list:
    """The processors both our structlog loggers and foreign (stdlib) records go through."""
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
        _process_fields(process),
        _extra_fields,
    ]


def json_lines(settings: Settings) -> bool:
    """Whether this process writes JSON lines: the setting, else (auto) when stderr is not a
    terminal."""
    if settings.log_json is not None:
        return settings.log_json
    return not sys.stderr.isatty()


def formatter(json_lines: bool, process: str, *, colors: bool = False) -> structlog.stdlib.ProcessorFormatter:
    renderer = (
        structlog.processors.JSONRenderer(default=str)
        if json_lines
        else structlog.dev.ConsoleRenderer(colors=colors, timestamp_key="ts")
    )
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared_processors(process),
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            _rename_exception,
            renderer,
        ],
    )


def configure_logging(settings: Settings, process: str = "cli", *, quiet: bool = False) -> None:
    """Route every record of this process through one handler on stderr. The level is
    RELAY_LOG_LEVEL's; unset: INFO, or WARNING for a ``quiet`` (one-shot) command."""
    handler = logging.StreamHandler(sys.stderr)
    as_json = json_lines(settings)
    handler.setFormatter(formatter(as_json, process, colors=not as_json and sys.stderr.isatty()))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    level = logging.getLevelName((settings.log_level or ("WARNING" if quiet else "INFO")).upper())
    root.setLevel(level)
    structlog.configure(
        processors=[
            *shared_processors(process)[:-1],
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    # Python warnings (a library's RuntimeWarning, ...) as log records, not raw stderr text.
    logging.captureWarnings(True)
    # uvicorn's and Alembic's loggers: no handlers of their own, everything to the root.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "alembic"):
        named = logging.getLogger(name)
        named.handlers[:] = []
        named.propagate = True
    # Access logs are metered in the database (and counted in /metrics) already.
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # The embedded PostgreSQL's wrapper narrates every pg_ctl call at INFO (shown at DEBUG);
    # its failures are ERRORs with the server's log.
    logging.getLogger("pgserver").setLevel(logging.NOTSET if level <= logging.DEBUG else logging.WARNING)
    for name in ROUTINE_LOGGERS:
        routine = logging.getLogger(name)
        if not any(isinstance(f, _DemoteRoutine) for f in routine.filters):
            routine.addFilter(_DemoteRoutine())
