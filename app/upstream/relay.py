"""Live routes: one upstream call, its payload passed through, and the link to the next page.

Every live route handler does the same three things, each a piece here:

1. ``relay(...)``: make the one upstream call through the shared client (holding one of the
   organization's live-call shares, ``app.gate.shares``) and check that the
   payload has the members we are about to read, of the types we read them as (``expect``).
   A payload of another shape is the upstream failing, not our bug: it raises
   ``UpstreamBadBody`` (-> 424), never a 500;
2. a paging rule of ``app.paging`` turns the payload into the next page's parameters, or
   None on the last page (``offset_next``, ``cursor_next``);
3. ``app.paging.next_page_url(request, changes)`` writes the next page's relative URL.

The payload itself is never rebuilt: what the upstream sent goes into ``data`` as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar import Request

from app.errors import ApiError
from app.gate.shares import LIVE_CALLS, take_for_request
from app.gate.state import current_gate
from app.paging import Shape
from app.store import credentials
from app.upstream.client import UpstreamAccount, UpstreamClient
from app.upstream.errors import UpstreamBadBody


async def relay(
    upstream: UpstreamClient,
    account: UpstreamAccount,
    path: str,
    params: Mapping[str, Any] | None = None,
    *,
    method: str = "GET",
    path_params: Mapping[str, object] | None = None,
    expect: Shape | None = None,
) -> dict[str, Any]:
    """The one upstream call of a live route; returns the upstream's JSON object untouched.

    ``params`` use the upstream's names; None values are not sent (the client drops them).
    ``expect`` names the members the route reads (for paging) and their types: if the
    upstream answers with something else, the call failed as far as the caller is concerned.
    The call holds one of the organization's live-call shares (429 ``concurrency_limit``
    past it): a slow upstream of one organization cannot take the shared upstream pool.
    """
    with take_for_request(LIVE_CALLS):
        payload = await upstream.request_json(
            method, account, path, path_params=path_params, params=params
        )
    unexpected = _unexpected_member(payload, expect or {})
    if unexpected is not None:
        raise UpstreamBadBody(
            f"The upstream platform sent an answer of an unexpected shape ({unexpected!r})."
        )
    return payload


def _unexpected_member(payload: object, expect: Shape) -> str | None:
    """The first expected member a payload lacks or has with another type ('object' when
    the payload is not an object at all); None when it has the expected shape."""
    if not isinstance(payload, dict):
        return "object"
    for dotted, kind in expect.items():
        node: object = payload
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return dotted
            node = node[part]
        if not isinstance(node, kind):
            return dotted
    return None


# --- the credential of account-less routes ----------------------------------------------

async def organization_credential(request: Request) -> UpstreamAccount:
    """An upstream credential of the calling organization, for routes without an account.

    424 when the organization has no connected account: without one the upstream cannot
    be reached at all (the same status as an upstream that refuses the credential).
    """
    key_id = current_gate().result.key_id  # set by the gate middleware
    assert key_id is not None  # past the gate: the key was found
    async with request.app.state.pool.connection() as conn:
        account = await credentials.organization_credential(conn, key_id)
    if account is None:
        raise ApiError(
            424,
            "no account is connected to this organization: the upstream GIF proxy needs the "
            "credential of a connected account",
            "no_connected_account",
        )
    return credentials.readable(request.app.state.keyring, account.account_id, account.token)
