"""The gate every upstream (``/api/...``) request passes, as one ASGI middleware.

Order: injected or random faults (latency, timeout, 5xx, 429, truncation), then
credentials (401), then the sandbox's own per-account rate limit (429 + Retry-After), then
the route. Control routes (``/_sandbox/...``) bypass the gate.
"""

from __future__ import annotations

import asyncio
import re

import msgspec

from sandbox.core.requests import resource_of

_ACCOUNT_PATH = re.compile(r"^/api/accounts/(\d+)(?:/|$)")


def account_of(path: str) -> int | None:
    match = _ACCOUNT_PATH.match(path)
    return int(match.group(1)) if match else None


async def send_error(send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    body = msgspec.json.encode({"error": message})
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class Gate:
    def __init__(self, app, state) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith("/api/"):
            await self.app(scope, receive, send)
            return
        state = self.state
        state.stats["requests"] += 1
        account_id = account_of(path)
        resource = resource_of(path)
        state.requests.count(account_id, resource)
        truncate = False
        for fault in state.faults.draw(account_id, path):
            state.stats[f"faults.{fault.kind}"] += 1
            if fault.kind in ("latency", "timeout"):
                await asyncio.sleep(fault.seconds)
            elif fault.kind == "status":
                await send_error(send, fault.status, "injected upstream fault")
                return
            elif fault.kind == "rate_limit":
                state.requests.refused(account_id, resource)
                await send_error(send, 429, "rate limit exceeded", {"Retry-After": str(fault.retry_after)})
                return
            elif fault.kind == "truncate":
                truncate = True
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1") or None
        if not state.accounts.credentials_ok(account_id, authorization):
            await send_error(send, 401, "invalid credentials")
            return
        retry_after = state.limiter.check(account_id)
        if retry_after is not None:
            state.requests.refused(account_id, resource)
            await send_error(send, 429, "rate limit exceeded", {"Retry-After": str(retry_after)})
            return
        await self.app(scope, receive, _truncating(send) if truncate else send)


def _truncating(send):
    """Wrap ``send`` so the response keeps its full Content-Length but only half its body
    is sent: the client sees the connection close mid-body."""
    start: dict = {}
    chunks: list[bytes] = []

    async def wrapped(message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return
        body = b"".join(chunks)
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body[: len(body) // 2], "more_body": False})

    return wrapped
