"""Every upstream path template: the one list shared by our client and the sandbox.

Templates use ``{account_id}``, ``{link_id}`` and ``{type}`` placeholders; format them with
``.format(...)`` (client) or mount them as routes (sandbox, which declares the same names).
See docs/upstream.md for each endpoint's parameters and payload.
"""

from __future__ import annotations

ACCOUNT = "/api/accounts/{account_id}"

CHATS = ACCOUNT + "/chats"
CHAT_LISTS = ACCOUNT + "/chats/lists"
MESSAGES_STATS = ACCOUNT + "/messages/stats"
POSTS = ACCOUNT + "/posts"
EARNINGS_TRANSACTIONS = ACCOUNT + "/earnings/transactions"
EARNINGS_OVERVIEW = ACCOUNT + "/earnings/overview"
EARNINGS_CHART = ACCOUNT + "/earnings/chart"
REACH_PROFILE_VISITORS = ACCOUNT + "/reach/profile-visitors"
REACH_PROMOTIONS = ACCOUNT + "/reach/promotions"
CAMPAIGNS_OVERVIEW = ACCOUNT + "/campaigns/overview"
CAMPAIGNS_CHART = ACCOUNT + "/campaigns/chart"
TRACKING_LINKS = ACCOUNT + "/tracking-links"
TRACKING_LINK_STATS = ACCOUNT + "/tracking-links/{link_id}/stats"
PROMOTIONS_TRIALS = ACCOUNT + "/promotions-trials"
VAULT_MEDIA_PROCESSING = ACCOUNT + "/vault/media/processing"
VAULT_LISTS = ACCOUNT + "/vault/lists"
PAYOUTS_CHARGEBACKS = ACCOUNT + "/payouts/chargebacks"
PAYOUTS_REQUESTS = ACCOUNT + "/payouts/requests"
SCHEDULES_LATER_CHAT = ACCOUNT + "/schedules/later/chat"
NOTIFICATIONS = ACCOUNT + "/notifications"
NOTIFICATIONS_MARK_READ = ACCOUNT + "/notifications/{type}/read"  # POST
GIFS_TRENDING = "/api/gifs/trending"

ALL = (
    CHATS, CHAT_LISTS, MESSAGES_STATS, POSTS, EARNINGS_TRANSACTIONS, EARNINGS_OVERVIEW,
    EARNINGS_CHART, REACH_PROFILE_VISITORS, REACH_PROMOTIONS, CAMPAIGNS_OVERVIEW,
    CAMPAIGNS_CHART, TRACKING_LINKS, TRACKING_LINK_STATS, PROMOTIONS_TRIALS,
    VAULT_MEDIA_PROCESSING, VAULT_LISTS, PAYOUTS_CHARGEBACKS, PAYOUTS_REQUESTS,
    SCHEDULES_LATER_CHAT, NOTIFICATIONS, NOTIFICATIONS_MARK_READ, GIFS_TRENDING,
)


def route(template: str) -> str:
    """The Litestar route form of a template (typed path parameters), for the sandbox."""
    return (
        template.replace("{account_id}", "{account_id:int}")
        .replace("{link_id}", "{link_id:int}")
        .replace("{type}", "{type:str}")
    )
