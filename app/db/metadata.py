"""The complete metadata: importing this module registers every model module."""

from __future__ import annotations

import importlib

from app.db.base import Base

# Every module that declares tables. Alembic's autogenerate and the drift test see
# exactly these.
MODEL_MODULES = ("app.db.models", "app.db.synced", "app.db.rollups", "app.db.events", "app.db.upstream_budget",
                 "app.db.staging")

for _module in MODEL_MODULES:
    try:
        importlib.import_module(_module)
    except ModuleNotFoundError as exc:  # a model module not written yet
        if exc.name != _module:
            raise

metadata = Base.metadata
