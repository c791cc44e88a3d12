"""Route families: one module per family, named after its URL.

Each module listed here exposes ``ROUTES``, a list of Litestar handlers,
controllers or routers; ``app.asgi.create_app`` mounts them all.
"""

from __future__ import annotations

import importlib

ROUTE_MODULES: tuple[str, ...] = (
    "app.routes.health",
    "app.routes.status",
    # live routes: relayed to the upstream (app/upstream/relay.py)
    "app.routes.chats",
    "app.routes.lists",
    "app.routes.direct_messages",
    "app.routes.reach",
    "app.routes.promotions_trials",
    "app.routes.vault",
    "app.routes.schedules",
    "app.routes.notifications",
    "app.routes.gifs",
    # store-served routes: answered from PostgreSQL (app/store/)
    "app.routes.earnings",
    "app.routes.payouts",
    "app.routes.posts",
    "app.routes.campaigns",
    "app.routes.tracking_links",
    # our own: the change events feed and exports (docs/events.md, docs/data.md)
    "app.routes.events",
    "app.routes.exports",
)


def route_handlers() -> list:
    handlers: list = []
    for name in ROUTE_MODULES:
        handlers.extend(importlib.import_module(name).ROUTES)
    return handlers
