"""What an upstream answer means: its decoded body, or the typed error its status says."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import msgspec

from app.upstream.errors import (
    UpstreamBadBody,
    UpstreamBadRequest,
    UpstreamCredentialsRejected,
    UpstreamNotFound,
    UpstreamRateLimited,
    UpstreamUnavailable,
)
from app.upstream.retry import AttemptFailed, parse_retry_after

#: Longest upstream 400 message we pass on to users (characters).
UPSTREAM_MESSAGE_MAX = 300


def interpret(
    status: int,
    headers: httpx.Headers,
    body: bytes,
    now: datetime,
    decode: Callable[[bytes], Any] | None = None,
) -> Any:
    """The decoded body of a 2xx answer, or the error the status means.

    Final answers raise their ``UpstreamError``; answers that may pass (429, 408, 5xx,
    unreadable bodies) raise ``AttemptFailed`` for the retry loop.
    """
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
        retry_after = parse_retry_after(headers.get("Retry-After"), now)
        raise AttemptFailed(
            UpstreamRateLimited(
                "The upstream platform is rate limiting this account; try again later.",
                retry_after=retry_after,
            ),
            may_have_run=False,
            retry_after=retry_after,
        )
    if status == 408 or status >= 500:
        raise AttemptFailed(
            UpstreamUnavailable(f"The upstream platform failed (HTTP {status}).", status=status),
            may_have_run=status != 408,
        )
    # 3xx or another 4xx: our request is wrong for this upstream; repeating will not help.
    raise UpstreamUnavailable(
        f"The upstream platform gave an unexpected answer (HTTP {status}).", status=status
    )


def _decode_json(body: bytes, status: int, decode: Callable[[bytes], Any] | None = None) -> Any:
    if not body.strip():
        return None  # 204 and friends
    try:
        return msgspec.json.decode(body) if decode is None else decode(body)
    except msgspec.DecodeError as exc:
        raise AttemptFailed(
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
