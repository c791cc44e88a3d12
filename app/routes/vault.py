"""Vault: media still processing, and the vault lists, live from the upstream.

GET /v1/{account_id}/vault/media/processing  (api_vault_list_processing)
GET /v1/{account_id}/vault/lists             (api_vault_list_lists)
"""

from __future__ import annotations

from litestar import Request

from app.answers.media import ProcessingMediaList, VaultListsPage
from app.envelope import Envelope
from app.gate import ConnectedAccount, Upstream, v1_get
from app.paging import LIST_PAGE, live_page, offset_page
from app.params import Limit100, Offset, Search
from app.upstream import paths
from app.upstream.relay import relay


@v1_get(
    "/v1/{account_id:int}/vault/media/processing",
    permission="api_vault_list_processing",
    tags=["vault"],
    summary="Vault media in processing (live)",
)
async def media_processing(
    request: Request, upstream: Upstream, account: ConnectedAccount
) -> Envelope[ProcessingMediaList]:
    """Media being transcoded; an item leaves the list once it is ready. No parameters."""
    payload = await relay(upstream, account, paths.VAULT_MEDIA_PROCESSING, expect={"list": list})
    return live_page(request, payload)


@v1_get(
    "/v1/{account_id:int}/vault/lists",
    permission="api_vault_list_lists",
    tags=["vault"],
    summary="Vault lists (live)",
)
async def vault_lists(
    request: Request,
    upstream: Upstream,
    account: ConnectedAccount,
    limit: Limit100 = 24,
    offset: Offset = 0,
    search: Search = None,
) -> Envelope[VaultListsPage]:
    """System lists and custom folders (``query`` finds custom lists by name); offset-paged."""
    params = {"limit": limit, "offset": offset, "query": search or None}
    payload = await relay(upstream, account, paths.VAULT_LISTS, params, expect=LIST_PAGE)
    return offset_page(request, payload, limit, offset, rows="list")


ROUTES = [media_processing, vault_lists]
