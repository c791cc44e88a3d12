"""When the upstream client tries again: backoff with full jitter, the upstream's
``Retry-After``, and the internal signal of one failed attempt that may pass."""

from __future__ import annotations

import email.utils
import math
import random as random_module
from collections.abc import Callable
from datetime import UTC, datetime

from app.upstream.errors import UpstreamUnavailable

#: Longest ``Retry-After`` we wait for inside one call (seconds). A longer request from the
#: upstream fails the call with ``UpstreamRateLimited`` (carrying ``retry_after``) rather than
#: holding an API request or a worker slot, or retrying before the upstream allows it.
RETRY_AFTER_MAX = 60.0


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


class AttemptFailed(Exception):
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
