"""Litestar dependencies available to every sandbox route.

- ``sandbox``: the :class:`sandbox.state.SandboxState`.
- ``now``: the sandbox clock's current whole second (rows with t <= now are visible).
"""

from __future__ import annotations

from litestar.di import Provide


def dependencies(state) -> dict[str, Provide]:
    def provide_sandbox():
        return state

    def provide_now() -> int:
        return state.now_s()

    return {
        "sandbox": Provide(provide_sandbox, sync_to_thread=False),
        "now": Provide(provide_now, sync_to_thread=False),
    }
