"""Route families: one module per family, named after its URL.

Each module listed here exposes ``ROUTES``, a list of Litestar handlers,
controllers or routers; ``app.asgi.create_app`` mounts them all.
"""

from __future__ import annotations

import importlib

ROUTE_MODULES: tuple[str, ...] = (
    "app.routes.health",
)


def route_handlers() -> list:
    handlers: list = []
    for name in ROUTE_MODULES:
        handlers.extend(importlib.import_module(name).ROUTES)
    return handlers
