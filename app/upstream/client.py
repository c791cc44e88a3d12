"""The one HTTP client for the upstream creator platform, shared by the API and the sync workers.

One ``UpstreamClient`` per process holds one pooled ``httpx.AsyncClient``. The API
creates it in its lifespan; a worker creates it at start-up::

    async with UpstreamClient(settings) as upstream:
        account = UpstreamAccount(account_id=42, token=credential)
        data = await upstream.get_json(account, paths.EARNINGS, params={"startDate": ...})

Every call goes through the same steps, each a small piece below:

1. the account's circuit breaker may refuse it at once (``UpstreamCircuitOpen``);
2. the URL is built here, and only here, from a path template (``app.upstream.paths``);
3. each attempt waits for one of the account's concurrency slots, sends, reads the whole
   body and decodes it as JSON;
4. failures that may pass (5xx, timeouts, connection errors, broken bodies, 429) are retried
   with exponential backoff and full jitter, or after the upstream's ``Retry-After``; final
   answers (401/403, 400, 404) raise at once, without a retry;
5. the outcome feeds the breaker and the call statistics (``track_upstream_calls``).

Failures are the typed errors of ``app.upstream.errors``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import email.utils
import enum
import logging
import math
import random as random_module
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import quote

import httpx
import msgspec

from app.metrics import UPSTREAM_BREAKER_OPENINGS, record_call
from app.settings import Settings
from app.upstream.errors import (
    UpstreamBadBody,
    UpstreamBadRequest,
    UpstreamCircuitOpen,
    UpstreamCredentialsRejected,
    UpstreamError,
    UpstreamNotFound,
    UpstreamRateLimited,
    UpstreamUnavailable,
)

logger = logging.getLogger(__name__)

#: Longest ``Retry-After`` we wait for inside one call (seconds). A longer request from the
#: upstream fails the call with ``UpstreamRateLimited`` (carrying ``retry_after``) rather than
#: holding an API request or a worker slot, or retrying before the upstream allows it.
RETRY_AFTER_MAX = 60.0

#: Longest upstream 400 message we pass on to users (characters).
UPSTREAM_MESSAGE_MAX = 300

#: Methods that are safe to repeat after a failure that may have reached the upstream.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


# --- values ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UpstreamAccount:
    """Whom a call is made for: the upstream account id and its upstream credential."""

    account_id: int
    # Never printed: reprs end up in logs and tracebacks.
    token: str = field(repr=False)


@dataclass(slots=True)
class UpstreamStats:
    """Counts of upstream calls. ``retries`` is ``attempts`` minus first tries."""

    calls: int = 0
    attempts: int = 0
    retries: int = 0
    failures: int = 0

    def add(self, *, attempts: int, failed: bool) -> None:
        self.calls += 1
        self.attempts += attempts
        self.retries += max(0, attempts - 1)
        self.failures += int(failed)


# A tuple so tracking nests (a whole sync run, and one page inside it). Tasks created
# inside a ``track_upstream_calls`` block inherit the context, so concurrent page fetches
# add to the same objects.
_tracked_stats: contextvars.ContextVar[tuple[UpstreamStats, ...]] = contextvars.ContextVar(
    "upstream_tracked_stats", default=()
)


@contextlib.contextmanager
def track_upstream_calls() -> Iterator[UpstreamStats]:
    """Count the upstream calls made inside the block (and by tasks it starts).

    The sync engine wraps a run in it and records ``stats.retries`` in the run log.
    """
    stats = UpstreamStats()
    token = _tracked_stats.set((*_tracked_stats.get(), stats))
    try:
        yield stats
    finally:
        _tracked_stats.reset(token)


# --- pure pieces: URLs, backoff, Retry-After -----------------------------------------


def build_path(path_template: str, path_params: Mapping[str, object]) -> str:
    """Fill a path template such as ``/api/accounts/{account_id}/chats``.

    Each value is percent-encoded as one path segment, so a value can never add a segment.
    """
    encoded = {name: quote(str(value), safe="") for name, value in path_params.items()}
    try:
        return path_template.format_map(encoded)
    except KeyError as exc:
        raise ValueError(f"path parameter {exc} missing for {path_template!r}") from None


def encode_query(params: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """Query pairs as the upstream expects them.

    ``None`` means "not given" and is dropped; booleans are ``true``/``false`` (Python
    would say ``True``); datetimes are ISO 8601; a list or tuple repeats the parameter.
    """
    pairs: list[tuple[str, str]] = []
    for name, value in (params or {}).items():
        values = value if isinstance(value, list | tuple) else (value,)
        pairs.extend((name, _query_value(item)) for item in values if item is not None)
    return pairs


def _query_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def backoff_delay(
    retry: int, *, base: float, cap: float, random: Callable[[], float] = random_module.random
) -> float:
    """Delay before retry number ``retry`` (1 = first retry): full jitter.

    Uniform in ``[0, min(cap, base * 2**(retry-1))]``: the ceiling doubles per retry, and
    spreading each wait over the whole range keeps many clients that failed together
    from retrying together.
    """
    exponent = min(max(retry - 1, 0), 62)  # 2**62 is past any cap; bigger would overflow a float
    ceiling = min(cap, base * 2.0**exponent)
    return max(0.0, ceiling * random())


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds or an HTTP-date.

    ``None`` when absent or unreadable (the caller falls back to its backoff). A date in
    the past means "now" (0).
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # "-0000" dates parse naive; HTTP-dates are always GMT
            when = when.replace(tzinfo=UTC)
        seconds = (when - now).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


# --- circuit breaker ----------------------------------------------------------------


class BreakerState(enum.Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class Permit(enum.Enum):
    """What the breaker allows a call: go, go as the one half-open trial, or fail fast."""

    GO = "go"
    TRIAL = "trial"
    REFUSED = "refused"


class CircuitBreaker:
    """Per-account breaker over *calls* (not attempts: a call already retries).

    Closed: calls go; ``failure_threshold`` consecutive failed calls open it.
    Open: calls are refused for ``reset_after`` seconds.
    Half-open: one trial call goes, the others are refused; its success closes the
    breaker, its failure opens it for another ``reset_after``.
    """

    def __init__(
        self,
        failure_threshold: int,
        reset_after: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failure_threshold = failure_threshold
        self.reset_after = reset_after
        self._clock = clock
        self.state = BreakerState.CLOSED
        self.consecutive_failures = 0
        self._opened_at = 0.0
        self._trial_in_flight = False

    def acquire(self) -> Permit:
        if self.state is BreakerState.OPEN:
            if self.seconds_until_trial() > 0:
                return Permit.REFUSED
            self.state = BreakerState.HALF_OPEN
            self._trial_in_flight = False
        if self.state is BreakerState.HALF_OPEN:
            if self._trial_in_flight:
                return Permit.REFUSED
            self._trial_in_flight = True
            return Permit.TRIAL
        return Permit.GO

    def seconds_until_trial(self) -> float:
        if self.state is not BreakerState.OPEN:
            return 0.0
        return max(0.0, self._opened_at + self.reset_after - self._clock())

    def record_success(self) -> None:
        """The upstream answered (any final answer counts: it is up)."""
        self.state = BreakerState.CLOSED
        self.consecutive_failures = 0
        self._trial_in_flight = False

    def record_failure(self) -> bool:
        """A call ended unavailable. Returns True when this failure opened the breaker."""
        self.consecutive_failures += 1
        if self.state is BreakerState.HALF_OPEN or (
            self.state is BreakerState.CLOSED
            and self.consecutive_failures >= self.failure_threshold
        ):
            self.state = BreakerState.OPEN
            self._opened_at = self._clock()
            self._trial_in_flight = False
            return True
        return False  # already open (a call that started before it opened): keep its timer

    def release_trial(self) -> None:
        """The trial ended without an outcome (cancelled): let another call try."""
        if self.state is BreakerState.HALF_OPEN:
            self._trial_in_flight = False


# --- the client -----------------------------------------------------------------------


class _AttemptFailed(Exception):
    """One attempt failed in a way that may pass; internal to the retry loop.

    ``may_have_run``: the upstream may have acted on the request (it matters only for
    non-idempotent calls, which are retried only when it surely did not).
    """

    def __init__(
        self,
        error: UpstreamUnavailable,
        *,
        may_have_run: bool,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(error.reason)
        self.error = error
        self.may_have_run = may_have_run
        self.retry_after = retry_after


@dataclass(slots=True)
class _AccountGate:
    """What one account's calls share: the concurrency slots and the breaker."""

    slots: asyncio.Semaphore
    breaker: CircuitBreaker


def _utc_now() -> datetime:
    return datetime.now(UTC)


class UpstreamClient:
    """Pooled, retrying, per-account-bounded client of the upstream platform.

    ``sleep``, ``clock``, ``random`` and ``now`` are injectable for tests of the timing logic.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        random: Callable[[], float] = random_module.random,
        now: Callable[[], datetime] = _utc_now,
        retry_after_max: float = RETRY_AFTER_MAX,
        limits: httpx.Limits | None = None,
    ) -> None:
        self._settings = settings
        self._sleep = sleep
        self._clock = clock
        self._random = random
        self._now = now
        self._retry_after_max = retry_after_max
        self._gates: dict[int, _AccountGate] = {}
        #: Totals since start-up, for metrics; per-run counts come from ``track_upstream_calls``.
        self.stats = UpstreamStats()
        read = settings.upstream_read_timeout
        self._http = httpx.AsyncClient(
            base_url=settings.upstream_url,
            # Waiting for a pooled connection is bounded like a read: a stuck pool is a timeout.
            timeout=httpx.Timeout(
                connect=settings.upstream_connect_timeout, read=read, write=read, pool=read
            ),
            limits=limits or httpx.Limits(max_connections=100, max_keepalive_connections=20),
            headers={"Accept": "application/json", "User-Agent": "creator-relay"},
            follow_redirects=False,
            # Settings are the only configuration: no proxies or certificates from the environment.
            trust_env=False,
        )

    async def __aenter__(self) -> UpstreamClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- public calls ---------------------------------------------------------------

    async def get_json(
        self,
        account: UpstreamAccount,
        path_template: str,
        *,
        path_params: Mapping[str, object] | None = None,
        params: Mapping[str, Any] | None = None,
        decode: Callable[[bytes], Any] | None = None,
    ) -> Any:
        """GET a path and return its decoded JSON body.

        ``decode`` replaces the generic JSON decoding of a 2xx body (e.g. the sync decodes
        a page's rows as raw JSON items); a ``msgspec.DecodeError`` it raises is a broken
        body like any other (retried).
        """
        return await self.request_json(
            "GET", account, path_template, path_params=path_params, params=params, decode=decode
        )

    async def post_json(
        self,
        account: UpstreamAccount,
        path_template: str,
        *,
        path_params: Mapping[str, object] | None = None,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        idempotent: bool = False,
    ) -> Any:
        """POST a JSON body and return the decoded JSON answer.

        Not idempotent unless told: only failures that surely did not reach the upstream
        (connection refused, 429, 408) are retried, so a POST never runs twice.
        """
        return await self.request_json(
            "POST",
            account,
            path_template,
            path_params=path_params,
            params=params,
            json=json,
            idempotent=idempotent,
        )

    async def request_json(
        self,
        method: str,
        account: UpstreamAccount,
        path_template: str,
        *,
        path_params: Mapping[str, object] | None = None,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        idempotent: bool | None = None,
        decode: Callable[[bytes], Any] | None = None,
    ) -> Any:
        """Make one upstream call (with its retries) and return the decoded JSON body.

        ``account`` gives the credential and the concurrency gate and breaker the call goes
        through. Account-less paths (``paths.GIFS_TRENDING``) still need a credential: pass
        any connected account's. ``{account_id}`` in the template is filled from ``account``
        unless ``path_params`` gives it. Raises an ``UpstreamError`` subclass.
        """
        method = method.upper()
        if idempotent is None:
            idempotent = method in IDEMPOTENT_METHODS
        request = self._build_request(method, account, path_template, path_params, params, json)
        account_id = account.account_id
        gate = self._gate(account_id)
        permit = gate.breaker.acquire()
        if permit is Permit.REFUSED:
            self._record_stats(attempts=0, failed=True)
            raise self._circuit_open_error(gate.breaker)

        log_fields = {"account_id": account_id, "method": method, "path": path_template}
        tries = [0]  # a cell the retry loop counts into, so cancellation still reports it
        failed = True
        try:
            data = await self._call_with_retries(request, gate, idempotent, tries, log_fields, decode)
        except _AttemptFailed as last:
            self._breaker_failure(gate.breaker, account_id)
            last.error.attempts = tries[0]
            logger.warning(
                "upstream_call_failed",
                extra={
                    **log_fields,
                    "attempts": tries[0],
                    "error": last.error.code,
                    "status": last.error.status,
                },
            )
            raise last.error from last.__cause__
        except UpstreamError as final:
            # A final answer (credentials, 400, 404, unexpected status): the upstream is up.
            self._breaker_success(gate.breaker, account_id)
            final.attempts = tries[0]
            raise
        else:
            failed = False
            self._breaker_success(gate.breaker, account_id)
            return data
        finally:
            if permit is Permit.TRIAL:
                gate.breaker.release_trial()  # no-op once success or failure was recorded
            self._record_stats(attempts=tries[0], failed=failed)

    # --- state for tests and metrics ------------------------------------------------

    def breaker_state(self, account_id: int) -> BreakerState:
        gate = self._gates.get(account_id)
        return gate.breaker.state if gate else BreakerState.CLOSED

    # --- the pieces of a call --------------------------------------------------------

    def _build_request(
        self,
        method: str,
        account: UpstreamAccount,
        path_template: str,
        path_params: Mapping[str, object] | None,
        params: Mapping[str, Any] | None,
        json: Any,
    ) -> httpx.Request:
        filled: dict[str, object] = {"account_id": account.account_id, **(path_params or {})}
        headers = {"Authorization": f"Bearer {account.token}"}
        content = None
        if json is not None:
            content = msgspec.json.encode(json)
            headers["Content-Type"] = "application/json"
        return self._http.build_request(
            method,
            build_path(path_template, filled),
            params=encode_query(params),
            headers=headers,
            content=content,
        )

    def _gate(self, account_id: int) -> _AccountGate:
        gate = self._gates.get(account_id)
        if gate is None:
            gate = _AccountGate(
                slots=asyncio.Semaphore(self._settings.upstream_concurrency_per_account),
                breaker=CircuitBreaker(
                    self._settings.upstream_breaker_failures,
                    self._settings.upstream_breaker_reset,
                    self._clock,
                ),
            )
            self._gates[account_id] = gate
        return gate

    async def _call_with_retries(
        self,
        request: httpx.Request,
        gate: _AccountGate,
        idempotent: bool,
        tries: list[int],
        log_fields: dict[str, object],
        decode: Callable[[bytes], Any] | None = None,
    ) -> Any:
        max_attempts = self._settings.upstream_max_attempts
        while True:
            tries[0] += 1
            try:
                # The slot is held for the request only, not across the backoff sleep.
                async with gate.slots:
                    return await self._attempt(request, decode)
            except _AttemptFailed as failed:
                delay = self._retry_delay(failed, retry=tries[0])
                if (
                    tries[0] >= max_attempts
                    or delay is None
                    or (failed.may_have_run and not idempotent)
                    or gate.breaker.state is BreakerState.OPEN  # others proved it down meanwhile
                ):
                    raise
                logger.warning(
                    "upstream_retry",
                    extra={
                        **log_fields,
                        "attempt": tries[0],
                        "max_attempts": max_attempts,
                        "delay": round(delay, 3),
                        "error": failed.error.code,
                        "status": failed.error.status,
                    },
                )
                await self._sleep(delay)

    def _retry_delay(self, failed: _AttemptFailed, *, retry: int) -> float | None:
        """Seconds before the next attempt; None to give up (Retry-After beyond our max)."""
        if failed.retry_after is not None:
            return failed.retry_after if failed.retry_after <= self._retry_after_max else None
        return backoff_delay(
            retry,
            base=self._settings.upstream_backoff_base,
            cap=self._settings.upstream_backoff_max,
            random=self._random,
        )

    async def _attempt(
        self, request: httpx.Request, decode: Callable[[bytes], Any] | None = None
    ) -> Any:
        """Send once, read the whole body, and interpret status and body."""
        try:
            response = await self._http.send(request, stream=True)
        except httpx.TimeoutException as exc:
            # Connect and pool timeouts happen before anything was sent.
            sent = not isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout)
            raise _AttemptFailed(
                UpstreamUnavailable("The upstream platform did not answer in time."),
                may_have_run=sent,
            ) from exc
        except httpx.TransportError as exc:
            raise _AttemptFailed(
                UpstreamUnavailable("The upstream platform could not be reached."),
                may_have_run=not isinstance(exc, httpx.ConnectError),
            ) from exc
        try:
            body = await response.aread()
        except httpx.TimeoutException as exc:
            raise _AttemptFailed(
                UpstreamUnavailable(
                    "The upstream platform did not answer in time.", status=response.status_code
                ),
                may_have_run=True,
            ) from exc
        except httpx.RequestError as exc:  # connection dropped mid-body, bad content-encoding
            raise _AttemptFailed(
                UpstreamBadBody(
                    "The upstream platform sent an incomplete answer.", status=response.status_code
                ),
                may_have_run=True,
            ) from exc
        finally:
            await response.aclose()
        return self._interpret(response.status_code, response.headers, body, decode)

    def _interpret(
        self,
        status: int,
        headers: httpx.Headers,
        body: bytes,
        decode: Callable[[bytes], Any] | None = None,
    ) -> Any:
        if 200 <= status < 300:
            return _decode_json(body, status, decode)
        if status == 400:
            message = _upstream_message(body)
            reason = "The upstream platform rejected a parameter of the request"
            raise UpstreamBadRequest(
                f"{reason}: {message}" if message else f"{reason}.", upstream_message=message
            )
        if status in (401, 403):
            raise UpstreamCredentialsRejected(
                "The upstream platform rejected the account's credentials; reconnect the account.",
                status=status,
            )
        if status == 404:
            raise UpstreamNotFound("Not found on the upstream platform.", status=404)
        if status == 429:
            retry_after = parse_retry_after(headers.get("Retry-After"), self._now())
            raise _AttemptFailed(
                UpstreamRateLimited(
                    "The upstream platform is rate limiting this account; try again later.",
                    retry_after=retry_after,
                ),
                may_have_run=False,
                retry_after=retry_after,
            )
        if status == 408 or status >= 500:
            raise _AttemptFailed(
                UpstreamUnavailable(f"The upstream platform failed (HTTP {status}).", status=status),
                may_have_run=status != 408,
            )
        # 3xx or another 4xx: our request is wrong for this upstream; repeating will not help.
        raise UpstreamUnavailable(
            f"The upstream platform gave an unexpected answer (HTTP {status}).", status=status
        )

    # --- outcomes ------------------------------------------------------------------

    def _circuit_open_error(self, breaker: CircuitBreaker) -> UpstreamCircuitOpen:
        wait = math.ceil(breaker.seconds_until_trial())
        return UpstreamCircuitOpen(
            "The upstream platform is unavailable for this account after repeated failures "
            f"(circuit open); next try in {wait} s."
        )

    def _breaker_failure(self, breaker: CircuitBreaker, account_id: int) -> None:
        if breaker.record_failure():
            UPSTREAM_BREAKER_OPENINGS.inc()
            logger.warning(
                "upstream_circuit_opened",
                extra={
                    "account_id": account_id,
                    "consecutive_failures": breaker.consecutive_failures,
                    "reset_after": breaker.reset_after,
                },
            )

    def _breaker_success(self, breaker: CircuitBreaker, account_id: int) -> None:
        if breaker.state is not BreakerState.CLOSED:
            logger.info("upstream_circuit_closed", extra={"account_id": account_id})
        breaker.record_success()

    def _record_stats(self, *, attempts: int, failed: bool) -> None:
        self.stats.add(attempts=attempts, failed=failed)
        record_call(attempts=attempts, failed=failed)
        for stats in _tracked_stats.get():
            stats.add(attempts=attempts, failed=failed)


def _decode_json(body: bytes, status: int, decode: Callable[[bytes], Any] | None = None) -> Any:
    if not body.strip():
        return None  # 204 and friends
    try:
        return msgspec.json.decode(body) if decode is None else decode(body)
    except msgspec.DecodeError as exc:
        raise _AttemptFailed(
            UpstreamBadBody("The upstream platform sent an answer that could not be read.", status=status),
            may_have_run=True,
        ) from exc


def _upstream_message(body: bytes) -> str | None:
    """The ``error`` text of an upstream error body, shortened; None if there is none."""
    try:
        decoded = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None
    message = decoded.get("error") if isinstance(decoded, dict) else None
    if not isinstance(message, str) or not message.strip():
        return None
    return message.strip()[:UPSTREAM_MESSAGE_MAX]
