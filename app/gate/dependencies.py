"""What the gate gives a route handler by parameter name.

- ``account: ConnectedAccount`` -- the route's ``{account_id}``, already checked by the
  gate to belong to the caller's organization, with its upstream credential;
- ``upstream: Upstream`` -- the process's one ``UpstreamClient``.

``v1_get``/``v1_post`` (``app.gate.route``) declare both on every gated route; Litestar
resolves only those a handler asks for.
"""

from __future__ import annotations

from litestar.datastructures import State
from litestar.di import NamedDependency, Provide

from app.gate.state import current_gate
from app.params import AccountId
from app.store.credentials import readable
from app.upstream.client import UpstreamAccount, UpstreamClient

ConnectedAccount = NamedDependency[UpstreamAccount]
Upstream = NamedDependency[UpstreamClient]


def connected_account(account_id: AccountId, state: State) -> UpstreamAccount:
    """The request's account, already checked by the gate to be the caller's, with its
    credential decrypted (only routes that call the upstream ask for it; 424 when no key
    opens it).

    ``account_id`` declares the path parameter's bounds for the schema; the gate has read
    it (and answered 404 for one past them) before Litestar parses it.
    """
    return readable(state.keyring, *stored_credential())


def stored_credential() -> tuple[int, str]:
    """The request's account id and its credential as stored (encrypted), from the gate."""
    gate = current_gate()
    stored = gate.result.upstream_token
    if gate.account_id is None or stored is None:
        raise RuntimeError("'account' asked for by a route without an {account_id:int} path parameter")
    return gate.account_id, stored


def provide_upstream(state: State) -> UpstreamClient:
    return state.upstream


# Both only read state the gate already holds: called in place (no thread, no coroutine).
GATE_DEPENDENCIES = {
    "account": Provide(connected_account, sync_to_thread=False),
    "upstream": Provide(provide_upstream, sync_to_thread=False),
}
