"""Typed failures of calls to the upstream creator platform.

Every failure the upstream client raises is an ``UpstreamError``. The API maps
them to its own statuses (unavailable and credentials rejected -> 424, bad
request -> 400, not found -> 404) and shows ``reason`` to the user, so
``reason`` is a short human sentence with no internals (no stack traces, no
tokens, no URLs with credentials).

The classes fall into two families, which is what the client's retry and
circuit-breaker logic keys on:

- ``UpstreamUnavailable`` and its subclasses: the upstream could not give an
  answer (5xx, timeouts, connection errors, broken bodies, rate limiting that
  outlasted our patience, an open circuit). Retried, and counted by the breaker.
- The others: the upstream answered, and the answer is final (credentials
  rejected, bad parameter, not found). Never retried, never counted.
"""

from __future__ import annotations


class UpstreamError(Exception):
    """Base of every failure of an upstream call.

    ``reason``: a message fit to show users. ``status``: the upstream HTTP
    status when there was one. ``attempts``: requests made by the call that
    failed (0 when it failed before sending anything, e.g. an open circuit).
    """

    code = "upstream_error"

    def __init__(self, reason: str, *, status: int | None = None, attempts: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.attempts = attempts


class UpstreamUnavailable(UpstreamError):
    """The upstream platform could not answer (after any retries we made)."""

    code = "upstream_unavailable"


class UpstreamBadBody(UpstreamUnavailable):
    """The upstream answered with a truncated or undecodable body.

    A subclass of ``UpstreamUnavailable`` because it is retried like a 5xx and,
    when it persists, means the same thing to the user: no usable answer.
    """

    code = "upstream_bad_body"


class UpstreamRateLimited(UpstreamUnavailable):
    """The upstream kept answering 429, or asked us to wait longer than we will.

    ``retry_after``: the wait in seconds the upstream last asked for, if it said,
    so a sync worker can reschedule instead of retrying blindly.
    """

    code = "upstream_rate_limited"

    def __init__(
        self,
        reason: str,
        *,
        retry_after: float | None = None,
        status: int | None = 429,
        attempts: int = 0,
    ) -> None:
        super().__init__(reason, status=status, attempts=attempts)
        self.retry_after = retry_after


class UpstreamCircuitOpen(UpstreamUnavailable):
    """Failed fast: this account's circuit breaker is open after repeated failures.

    ``retry_after``: seconds until the breaker lets a trial call through.
    """

    code = "upstream_circuit_open"

    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class UpstreamTimeout(UpstreamUnavailable):
    """The call's total deadline (all attempts and waits) passed without an answer."""

    code = "upstream_timeout"


class UpstreamCredentialsRejected(UpstreamError):
    """The upstream rejected the account's credentials (401 or 403)."""

    code = "upstream_credentials_rejected"


class UpstreamBadRequest(UpstreamError):
    """The upstream rejected a parameter (400).

    ``reason`` includes the upstream's own message; ``upstream_message`` is that message
    alone (None when the upstream gave none).
    """

    code = "upstream_bad_request"

    def __init__(
        self,
        reason: str,
        *,
        upstream_message: str | None = None,
        status: int | None = 400,
        attempts: int = 0,
    ) -> None:
        super().__init__(reason, status=status, attempts=attempts)
        self.upstream_message = upstream_message


class UpstreamNotFound(UpstreamError):
    """The upstream has no such object (404)."""

    code = "upstream_not_found"
