"""Whether the upstream accepts an account's credential: one call, before it is stored
(``relay accounts connect|reconnect``; ``--no-check`` skips it).

The call is the cheapest the account has: the first tracking link (``limit=1``), the
request the sync's head check of tracking links makes anyway. A rejection is
``UpstreamCredentialsRejected``; an upstream that does not know the account,
``UpstreamNotFound``; an upstream that cannot answer (after the client's retries, within
``RELAY_UPSTREAM_LIVE_DEADLINE``) one of the ``UpstreamUnavailable`` family: the credential
was not checked.
"""

from __future__ import annotations

from app.settings import Settings
from app.upstream import paths
from app.upstream.client import UpstreamAccount, UpstreamClient


async def check_credential(settings: Settings, account: UpstreamAccount) -> None:
    """Return when the upstream accepts ``account``'s credential; raise its ``UpstreamError``
    otherwise."""
    async with UpstreamClient(settings, deadline=settings.upstream_live_deadline) as upstream:
        await upstream.get_json(account, paths.TRACKING_LINKS, params={"limit": 1, "offset": 0})
