"""The store-served routes' ``reader``, built by the gate for each request: the account the
gate admitted, its one upstream read (the live relay with the stored credential, decrypted
only when the upstream is called, so a credential no key opens never stops an answer the
store holds), and ``fresh`` and the date window declared once for all of them."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any, get_type_hints

from litestar.datastructures import State
from litestar.di import Provide
from litestar.params import Parameter

from app.crypto.keyring import Keyring
from app.gate.dependencies import stored_credential
from app.paging import Shape
from app.params import AccountId
from app.store.credentials import readable
from app.store.source import Reader, UpstreamRead
from app.upstream.client import UpstreamClient
from app.upstream.relay import relay


def upstream_read(upstream: UpstreamClient, keyring: Keyring, account_id: int, credential: str) -> UpstreamRead:
    async def read(
        path: str, params: Mapping[str, Any], *, path_params: Mapping[str, object] | None = None,
        expect: Shape | None = None,
    ) -> dict[str, Any]:
        account = readable(keyring, account_id, credential)
        return await relay(upstream, account, path, params, path_params=path_params, expect=expect)

    return read


Fresh = Annotated[bool, Parameter(description="true: read the upstream live, even when the store covers the window.")]


def provide_reader(state: State, account_id: AccountId, fresh: Fresh = False) -> Reader:
    """``reader: Reader`` for store-served routes; declares ``fresh`` once for all of them.

    It takes the account from the gate (what ``account: ConnectedAccount`` gives) and the
    upstream client from the app state itself rather than through Litestar's dependencies:
    the gate's wrapper calls it with its parameters parsed in the handler's one pass
    (``provides=``), which costs a store page less than a dependency's resolution would.
    ``account_id`` declares the path parameter's bounds (the schema shows them); the gate
    has already checked that account.
    """
    gated_account, credential = stored_credential()
    # Item access: an attribute of ``State`` costs a failed lookup before its __getattr__.
    return Reader(
        pool=state["pool"],
        account_id=gated_account,
        upstream_read=upstream_read(state["upstream"], state["keyring"], gated_account, credential),
        fresh=fresh,
        read_pool=state["read_pools"].for_account(gated_account),
        batched=state.get("batched_reads"),
    )


#: ``provides=READER`` (``app.gate.route``): ``reader`` for a store-served route without a
#: date window.
READER = {"reader": provide_reader}


def windowed_reader(window: Provide) -> dict[str, Callable[..., Reader]]:
    """``provides=`` for a store-served route that takes a date window: ``reader``, whose
    ``reader.date_window`` the handler reads.

    One provider that declares ``window``'s query parameters (those of its function, with
    their documentation) beside ``fresh`` and builds both; the gate's wrapper parses its
    parameters with the handler's own (``app.gate.route.after_validation``).
    """
    parse = window.dependency
    own = _parameters(provide_reader)
    # The window's ``state`` (its length setting) is the reader's own.
    dates = [p for p in _parameters(parse) if p.name != "state"]

    def provide(state: State, account_id: int, fresh: bool = False, **window_args: Any) -> Reader:
        reader = provide_reader(state, account_id, fresh)
        reader.window = parse(state, **window_args)
        return reader

    # What the wrapper reads: the signature and type hints of both functions as one (``fresh``
    # last, where the schema has always listed it).
    parameters = [p for p in own if p.name != "fresh"] + dates + [p for p in own if p.name == "fresh"]
    provide.__signature__ = inspect.Signature(parameters, return_annotation=Reader)  # type: ignore[attr-defined]
    provide.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": Reader}
    return {"reader": provide}


def _parameters(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    """``fn``'s parameters as keyword-only ones, each annotated with its resolved type hint."""
    hints = get_type_hints(fn, include_extras=True)
    return [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[p.name])
        for p in inspect.signature(fn).parameters.values()
    ]
