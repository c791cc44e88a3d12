"""The gate every authenticated request passes: keys, rate limits, permissions, tenancy,
credits and the envelope's ``_meta``. See docs/architecture.md ("The gate", "Writing a route")."""

from app.gate.install import ConnectedAccount, Upstream, gate_dependencies, install_gate
from app.gate.metering import Meter, StatusRecorder
from app.gate.middleware import gate_middleware
from app.gate.state import PERMISSION_OPT

__all__ = [
    "ConnectedAccount",
    "Meter",
    "Upstream",
    "PERMISSION_OPT",
    "StatusRecorder",
    "gate_dependencies",
    "gate_middleware",
    "install_gate",
]
