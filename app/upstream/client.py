"""The one HTTP client for the upstream creator platform, shared by the API and the sync workers.

One ``UpstreamClient`` per process holds one pooled ``httpx.AsyncClient``. The API
creates it in its lifespan; a worker creates it at start-up::

    async with UpstreamClient(settings) as upstream:
        account = UpstreamAccount(account_id=42, token=credential)
        data = await upstream.get_json(account, paths.EARNINGS, params={"startDate": ...})

Every call goes through the same steps, each a small piece below:

1. the account's circuit breaker may refuse it at once (``UpstreamCircuitOpen``);
2. the URL is built here, and only here, from a path template (``app.upstream.paths``);
3. each attempt (a retry too) first awaits the caller's ``before_attempt``, if any (the
   sync's slot of the account's upstream budget: a retry after a 429 is paced like any
   request), then waits for one of the account's concurrency slots, sends, reads the
   whole body and decodes it as JSON;
4. failures that may pass (5xx, timeouts, connection errors, broken bodies, 429) are retried
   with exponential backoff and full jitter, or after the upstream's ``Retry-After``; final
   answers (401/403, 400, 404) raise at once, without a retry;
5. the outcome feeds the breaker and the call statistics (``track_upstream_calls``).

Failures are the typed errors of ``app.upstream.errors``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random as random_module
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
import msgspec

from app.metrics import UPSTREAM_BREAKER_OPENINGS
from app.settings import Settings
from app.upstream.answers import interpret
from app.upstream.breaker import BreakerState, CircuitBreaker, Permit
from app.upstream.errors import (
    UpstreamBadBody,
    UpstreamCircuitOpen,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from app.upstream.retry import RETRY_AFTER_MAX, AttemptFailed, backoff_delay
from app.upstream.stats import record_upstream_call
from app.upstream.urls import build_path, encode_query

logger = logging.getLogger(__name__)

#: Methods that are safe to repeat after a failure that may have reached the upstream.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


# --- values ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UpstreamAccount:
    """Whom a call is made for: the upstream account id and its upstream credential."""

    account_id: int
    # Never printed: reprs end up in logs and tracebacks.
    token: str = field(repr=False)


# --- the client -----------------------------------------------------------------------


@dataclass(slots=True)
class _AccountSlots:
    """The account slots: what one account's calls share, its concurrency slots and its breaker."""

    slots: asyncio.Semaphore
    breaker: CircuitBreaker


def _utc_now() -> datetime:
    return datetime.now(UTC)


class UpstreamClient:
    """Pooled, retrying, per-account-bounded client of the upstream platform.

    ``deadline``: seconds one call may take across all its attempts and waits (the API
    passes ``upstream_live_deadline``; workers none, they live by their retry policy).
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
        deadline: float | None = None,
    ) -> None:
        self._settings = settings
        self._deadline = deadline
        self._sleep = sleep
        self._clock = clock
        self._random = random
        self._now = now
        self._retry_after_max = retry_after_max
        self._accounts: dict[int, _AccountSlots] = {}
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
        before_attempt: Callable[[], Awaitable[object]] | None = None,
    ) -> Any:
        """GET a path and return its decoded JSON body.

        ``decode`` replaces the generic JSON decoding of a 2xx body (e.g. the sync decodes
        a page's rows as raw JSON items); a ``msgspec.DecodeError`` it raises is a broken
        body like any other (retried). ``before_attempt`` is awaited before every attempt,
        retries included (the sync takes a slot of the account's upstream budget there).
        """
        return await self.request_json(
            "GET", account, path_template, path_params=path_params, params=params, decode=decode,
            before_attempt=before_attempt,
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
        before_attempt: Callable[[], Awaitable[object]] | None = None,
    ) -> Any:
        """Make one upstream call (with its retries) and return the decoded JSON body.

        ``account`` gives the credential and the concurrency slots and breaker the call goes
        through. Account-less paths (``paths.GIFS_TRENDING``) still need a credential: pass
        any connected account's. ``{account_id}`` in the template is filled from ``account``
        unless ``path_params`` gives it. Raises an ``UpstreamError`` subclass.
        """
        method = method.upper()
        if idempotent is None:
            idempotent = method in IDEMPOTENT_METHODS
        request = self._build_request(method, account, path_template, path_params, params, json)
        account_id = account.account_id
        held = self._account(account_id)
        permit = held.breaker.acquire()
        if permit is Permit.REFUSED:
            record_upstream_call(attempts=0, failed=True)
            raise self._circuit_open_error(held.breaker)

        log_fields = {"account_id": account_id, "method": method, "path": path_template}
        tries = [0]  # a cell the retry loop counts into, so cancellation still reports it
        failed = True
        deadline = asyncio.timeout(self._deadline)
        try:
            async with deadline:
                data = await self._call_with_retries(
                    request, held, idempotent, tries, log_fields, decode, before_attempt
                )
        except TimeoutError:
            if not deadline.expired():
                raise
            self._breaker_failure(held.breaker, account_id)
            logger.warning("upstream_deadline_passed", extra={**log_fields, "attempts": tries[0]})
            raise UpstreamTimeout(
                f"The upstream platform did not answer within {self._deadline:g} s.",
                attempts=tries[0],
            ) from None
        except AttemptFailed as last:
            self._breaker_failure(held.breaker, account_id)
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
            self._breaker_success(held.breaker, account_id)
            final.attempts = tries[0]
            raise
        else:
            failed = False
            self._breaker_success(held.breaker, account_id)
            return data
        finally:
            if permit is Permit.TRIAL:
                held.breaker.release_trial()  # no-op once success or failure was recorded
            record_upstream_call(attempts=tries[0], failed=failed)

    # --- state for tests and metrics ------------------------------------------------

    def breaker_state(self, account_id: int) -> BreakerState:
        held = self._accounts.get(account_id)
        return held.breaker.state if held else BreakerState.CLOSED

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
            params=tuple(encode_query(params)),  # a tuple: httpx's type for pairs (a list is invariant)
            headers=headers,
            content=content,
        )

    def _account(self, account_id: int) -> _AccountSlots:
        held = self._accounts.get(account_id)
        if held is None:
            held = _AccountSlots(
                slots=asyncio.Semaphore(self._settings.upstream_concurrency_per_account),
                breaker=CircuitBreaker(
                    self._settings.upstream_breaker_failures,
                    self._settings.upstream_breaker_reset,
                    self._clock,
                ),
            )
            self._accounts[account_id] = held
        return held

    async def _call_with_retries(
        self,
        request: httpx.Request,
        held: _AccountSlots,
        idempotent: bool,
        tries: list[int],
        log_fields: dict[str, object],
        decode: Callable[[bytes], Any] | None = None,
        before_attempt: Callable[[], Awaitable[object]] | None = None,
    ) -> Any:
        max_attempts = self._settings.upstream_max_attempts
        while True:
            if before_attempt is not None:
                await before_attempt()
            tries[0] += 1
            try:
                # The slot is held for the request only, not across the backoff sleep.
                async with held.slots:
                    return await self._attempt(request, decode)
            except AttemptFailed as failed:
                delay = self._retry_delay(failed, retry=tries[0])
                if (
                    tries[0] >= max_attempts
                    or delay is None
                    or (failed.may_have_run and not idempotent)
                    or held.breaker.state is BreakerState.OPEN  # others proved it down meanwhile
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

    def _retry_delay(self, failed: AttemptFailed, *, retry: int) -> float | None:
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
            raise AttemptFailed(
                UpstreamUnavailable("The upstream platform did not answer in time."),
                may_have_run=sent,
            ) from exc
        except httpx.TransportError as exc:
            raise AttemptFailed(
                UpstreamUnavailable("The upstream platform could not be reached."),
                may_have_run=not isinstance(exc, httpx.ConnectError),
            ) from exc
        try:
            body = await response.aread()
        except httpx.TimeoutException as exc:
            raise AttemptFailed(
                UpstreamUnavailable(
                    "The upstream platform did not answer in time.", status=response.status_code
                ),
                may_have_run=True,
            ) from exc
        except httpx.RequestError as exc:  # connection dropped mid-body, bad content-encoding
            raise AttemptFailed(
                UpstreamBadBody(
                    "The upstream platform sent an incomplete answer.", status=response.status_code
                ),
                may_have_run=True,
            ) from exc
        finally:
            await response.aclose()
        return interpret(response.status_code, response.headers, body, self._now(), decode)

    # --- outcomes ------------------------------------------------------------------

    def _circuit_open_error(self, breaker: CircuitBreaker) -> UpstreamCircuitOpen:
        wait = max(1, math.ceil(breaker.seconds_until_trial()))
        return UpstreamCircuitOpen(
            "The upstream platform is unavailable for this account after repeated failures "
            f"(circuit open); next try in {wait} s.",
            retry_after=wait,
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
