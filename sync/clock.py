"""The upstream's current time, which bounds every sync pass.

A pass reads a window ending "now" and, once complete, records that the store holds every
row up to that instant (coverage). "Now" must therefore be the upstream's clock, not
ours: rows appear when the upstream's clock passes their time.

- ``system``: the machine clock. The real upstream runs in real time.
- ``sandbox``: the sandbox upstream's controllable clock (``GET /_sandbox/clock`` on the
  upstream URL), for ``relay demo`` and tests that move or freeze the sandbox's time.
"""

from __future__ import annotations

import time
from typing import Protocol

import httpx

from app.settings import Settings

#: The sandbox's control endpoint for its clock (not an upstream path: the real upstream
#: has no such thing, so it is not in app.upstream.paths).
SANDBOX_CLOCK_PATH = "/_sandbox/clock"


class UpstreamClock(Protocol):
    async def now(self) -> int: ...

    async def aclose(self) -> None: ...


class SystemClock:
    async def now(self) -> int:
        return int(time.time())

    async def aclose(self) -> None:
        return None


class SandboxClock:
    def __init__(self, base_url: str) -> None:
        self._http = httpx.AsyncClient(base_url=base_url, timeout=10, trust_env=False)

    async def now(self) -> int:
        response = await self._http.get(SANDBOX_CLOCK_PATH)
        response.raise_for_status()
        return int(response.json()["now"])

    async def aclose(self) -> None:
        await self._http.aclose()


def upstream_clock(settings: Settings) -> UpstreamClock:
    if settings.sync_clock == "sandbox":
        return SandboxClock(settings.upstream_url)
    return SystemClock()
