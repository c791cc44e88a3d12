"""What a failed task records and when it is retried (``sync.engine`` releases with it)."""

from __future__ import annotations

from app.settings import Settings
from app.upstream.errors import UpstreamCredentialsRejected, UpstreamError, UpstreamRateLimited
from app.upstream.retry import backoff_delay

#: The first retry of a failed task waits up to this long; the ceiling doubles per failure.
RETRY_BASE_SECONDS = 10.0


class CredentialUnreadable(Exception):
    """The leased account's stored credential opens with no key of RELAY_SECRET_KEYS."""


def retry_delay(exc: BaseException, failures: int, settings: Settings, interval: float) -> float:
    """Retry-After when the upstream gave one, the resource's ``interval`` for credentials
    (an operator must act either way), else the upstream client's backoff (ceiling doubling
    per consecutive failure, full jitter) up to ``RELAY_SYNC_RETRY_MAX_SECONDS``."""
    if isinstance(exc, UpstreamRateLimited) and exc.retry_after:
        return exc.retry_after
    if isinstance(exc, UpstreamCredentialsRejected | CredentialUnreadable):
        return interval
    return backoff_delay(failures, base=RETRY_BASE_SECONDS, cap=settings.sync_retry_max_seconds)


def expected(exc: BaseException) -> bool:
    """A failure of the upstream or of the stored credential (logged without a traceback)."""
    return isinstance(exc, UpstreamError | CredentialUnreadable)


def rejects_credentials(exc: BaseException) -> bool:
    """The upstream refused the account's credential (the failure, or the first of a group)."""
    if isinstance(exc, BaseExceptionGroup):
        return rejects_credentials(exc.exceptions[0])
    return isinstance(exc, UpstreamCredentialsRejected)


def describe(exc: BaseException) -> str:
    """The failure as ``sync_runs.error`` and ``sync_state.last_error`` show it."""
    if isinstance(exc, BaseExceptionGroup):
        return describe(exc.exceptions[0])
    if isinstance(exc, UpstreamError):
        return f"{exc.code}: {exc.reason}"
    return f"{type(exc).__name__}: {exc}"
