"""The gate every authenticated request passes: keys, rate limits, permissions, tenancy,
credits and the envelope's ``_meta``. A route joins it by its declaration,
``@v1_get(path, permission=...)``. See docs/architecture.md ("The gate")."""

from app.gate.dependencies import ConnectedAccount, Upstream
from app.gate.keeper import Gatekeeper
from app.gate.ledger import LedgerWriter
from app.gate.meter import Meter
from app.gate.route import refuse_ungated_routes, v1_get, v1_post
from app.gate.shares import EXPENSIVE_READS, EXPORTS, LIVE_CALLS

__all__ = [
    "EXPENSIVE_READS",
    "EXPORTS",
    "LIVE_CALLS",
    "ConnectedAccount",
    "Gatekeeper",
    "LedgerWriter",
    "Meter",
    "Upstream",
    "refuse_ungated_routes",
    "v1_get",
    "v1_post",
]
