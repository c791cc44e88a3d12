"""Every permission named in the API spec, and the roles that grant them.

The migrations seed these into the ``permissions``, ``roles`` and
``role_permissions`` tables; each route declares the one permission it needs.
"""

from __future__ import annotations

PERMISSIONS: dict[str, str] = {
    "api_chats_list": "GET /v1/{account_id}/chats",
    "api_chats_list_chat_lists": "GET /v1/{account_id}/lists",
    "api_direct_messages_stats": "GET /v1/{account_id}/direct-messages",
    "api_posts_list": "GET /v1/{account_id}/posts",
    "api_earnings_list": "GET /v1/{account_id}/earnings",
    "api_earnings_read_overview": "GET /v1/{account_id}/earnings/overview",
    "api_earnings_read_chart": "GET /v1/{account_id}/earnings/chart",
    "api_reach_read_profile_visitors": "GET /v1/{account_id}/reach/profile-visitors",
    "api_reach_list_promotions": "GET /v1/{account_id}/reach/promotions",
    "api_campaigns_read_overview": "GET /v1/{account_id}/campaigns/overview",
    "api_campaigns_read_chart": "GET /v1/{account_id}/campaigns/chart",
    "api_tracking_links_read": "GET /v1/{account_id}/tracking-links/{link_id}/stats",
    "api_promotions_trials_list": "GET /v1/{account_id}/promotions-trials",
    "api_vault_list_processing": "GET /v1/{account_id}/vault/media/processing",
    "api_vault_list_lists": "GET /v1/{account_id}/vault/lists",
    "api_payouts_list_chargebacks": "GET /v1/{account_id}/payouts/chargebacks",
    "api_payouts_list_requests": "GET /v1/{account_id}/payouts/requests",
    "api_schedules_later_chat": "GET /v1/{account_id}/schedules/later/chat",
    "api_notifications_list": "GET /v1/{account_id}/notifications",
    "api_notifications_mark_read": "POST /v1/{account_id}/notifications/{type}/read",
    "api_gifs_trending": "GET /v1/gifs/trending",
    # Not in the upstream spec: our own events feed and exports (docs/events.md, docs/data.md).
    "api_events_list": "GET /v1/events",
    "api_exports_read": "GET /v1/{account_id}/exports/{resource}",
}

_ANALYTICS = {
    "api_posts_list",
    "api_earnings_list",
    "api_earnings_read_overview",
    "api_earnings_read_chart",
    "api_reach_read_profile_visitors",
    "api_reach_list_promotions",
    "api_campaigns_read_overview",
    "api_campaigns_read_chart",
    "api_tracking_links_read",
    "api_promotions_trials_list",
    "api_payouts_list_chargebacks",
    "api_payouts_list_requests",
    "api_exports_read",
}

_MESSAGING = {
    "api_chats_list",
    "api_chats_list_chat_lists",
    "api_direct_messages_stats",
    "api_schedules_later_chat",
    "api_notifications_list",
    "api_notifications_mark_read",
    "api_gifs_trending",
    "api_vault_list_processing",
    "api_vault_list_lists",
}

ROLES: dict[str, tuple[str, frozenset[str]]] = {
    "admin": ("Every route.", frozenset(PERMISSIONS)),
    "reader": (
        "Every read route; cannot mark notifications read.",
        frozenset(PERMISSIONS) - {"api_notifications_mark_read"},
    ),
    "analytics": ("Earnings, payouts, posts, reach, campaigns and promotions.", frozenset(_ANALYTICS)),
    "messaging": ("Chats, messages, schedules, notifications, vault and GIFs.", frozenset(_MESSAGING)),
}
