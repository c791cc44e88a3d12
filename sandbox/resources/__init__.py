"""Resource plug-ins: each module exposes ``ROUTES`` (Litestar handlers), optionally
``TRUTH`` ({resource name: function}, see sandbox.control) and ``RESET`` (a callable
taking the SandboxState, run on every reset). ``create_sandbox_app`` mounts them all."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def discover() -> list[ModuleType]:
    modules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            modules.append(importlib.import_module(f"{__name__}.{info.name}"))
    return modules
