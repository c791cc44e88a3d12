"""The sandbox upstream server: ``create_sandbox_app(config)`` and ``run(settings)``."""

from __future__ import annotations

from functools import partial

from litestar import Litestar
from litestar.datastructures import State
from litestar.middleware import DefineMiddleware

from sandbox import control
from sandbox.config import SandboxConfig
from sandbox.core.deps import dependencies
from sandbox.core.errors import EXCEPTION_HANDLERS
from sandbox.core.gate import Gate
from sandbox.resources import discover
from sandbox.state import SandboxState


def create_sandbox_app(config: SandboxConfig | None = None) -> Litestar:
    state = SandboxState(config or SandboxConfig())
    routes: list = list(control.ROUTES)
    truth = dict(control.TRUTH)
    for module in discover():
        routes.extend(getattr(module, "ROUTES", []))
        truth.update(getattr(module, "TRUTH", {}))
        reset = getattr(module, "RESET", None)
        if reset is not None:
            state.reset_hooks.append(partial(reset, state))
    state.truth_functions = truth
    return Litestar(
        route_handlers=routes,
        middleware=[DefineMiddleware(Gate, state=state)],
        dependencies=dependencies(state),
        exception_handlers=EXCEPTION_HANDLERS,
        state=State({"sandbox": state}),
        openapi_config=None,
        logging_config=None,  # `relay sandbox` set up logging (app.logging)
        debug=False,
    )


def serve(config: SandboxConfig) -> None:
    """Serve the sandbox with uvicorn until interrupted (blocking)."""
    import uvicorn

    uvicorn.run(
        create_sandbox_app(config),
        host=config.host,
        port=config.port,
        log_config=None,  # records go to the root logger set up by `relay sandbox`
        access_log=False,
    )


def run(settings, **overrides) -> None:
    """Entry point for ``relay sandbox``: serve on settings.sandbox_host:sandbox_port."""
    serve(SandboxConfig.from_settings(settings, **overrides))
