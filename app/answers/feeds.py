"""The paged lists: each page's rows and its wrapper, as the spec names them."""

from __future__ import annotations

from typing import Any

import msgspec

from app.answers.shared import Camel, ChatUser, NumericString, Timestamp, UnixSeconds, UserRef, UserSummary

# --- chats and lists -------------------------------------------------------------------------


class LastMessage(Camel, kw_only=True):
    id: int
    text: str
    is_free: bool
    created_at: Timestamp
    media_count: int
    is_tip: bool
    is_opened: bool
    giphy_id: str | None
    locked_text: bool
    #: Present with ``skip_users=none``.
    from_user: UserRef | None = None


class Chat(Camel, kw_only=True):
    #: Present with ``skip_users=none``.
    with_user: ChatUser | None = None
    last_message: LastMessage
    can_send_message: bool
    can_go_to_profile: bool
    unread_messages_count: int
    last_read_message_id: int
    has_unread_tips: bool
    is_muted_notifications: bool
    has_purchased_feed: bool
    count_pinned_messages: int


class ChatsPage(Camel, kw_only=True):
    rows: list[Chat] = msgspec.field(name="list")
    has_more: bool


class ChatList(Camel, kw_only=True):
    id: int
    type: str
    name: str
    posts_count: int


class ChatListsPage(Camel, kw_only=True):
    rows: list[ChatList] = msgspec.field(name="list")
    has_more: bool


# --- direct messages, schedules, notifications -------------------------------------------


class DirectMessageStats(Camel, kw_only=True):
    id: int
    date: Timestamp
    text: str
    sent_count: int
    viewed_count: int
    media_count: int
    is_free: bool
    is_tip: bool


class DirectMessagesPage(Camel, kw_only=True):
    has_more: bool
    items: list[DirectMessageStats]


class ScheduledEntity(Camel, kw_only=True):
    response_type: str
    id: int
    text: str
    is_from_queue: bool
    queue_id: int


class ScheduledChat(Camel, kw_only=True):
    id: int
    type: str
    publish_date_time: Timestamp
    created_date_time: Timestamp
    entity: ScheduledEntity


class ScheduledChats(Camel, kw_only=True):
    rows: list[ScheduledChat] = msgspec.field(name="list")


class Notification(Camel, kw_only=True):
    """Per-category members beyond these come as the upstream sends them."""

    id: int
    type: str
    created_at: Timestamp
    is_read: bool


class NotificationsPage(Camel, kw_only=True):
    rows: list[Notification] = msgspec.field(name="list")
    has_more: bool


# --- posts ---------------------------------------------------------------------------------


class FileUrl(msgspec.Struct, kw_only=True):
    url: str | None


class MediaFiles(Camel, kw_only=True):
    full: FileUrl
    thumb: FileUrl | None = None
    preview: FileUrl | None = None
    square_preview: FileUrl | None = None


class Media(Camel, kw_only=True):
    id: int
    type: str
    can_view: bool
    is_ready: bool
    duration: int
    files: MediaFiles


class Post(Camel, kw_only=True):
    author: UserRef
    response_type: str
    id: int
    posted_at: Timestamp
    posted_at_precise: NumericString
    text: str
    raw_text: str
    can_delete: bool
    can_comment: bool
    can_edit: bool
    can_toggle_favorite: bool
    can_view_media: bool
    is_media_ready: bool
    media_count: int
    tips_amount: str
    media: list[Media]


class PostCounters(Camel, kw_only=True):
    audios_count: int
    photos_count: int
    videos_count: int
    medias_count: int
    posts_count: int
    #: Null when served from the store (streams are not synced).
    streams_count: int | None
    archived_posts_count: int
    private_archived_posts_count: int


class PostsPage(Camel, kw_only=True):
    rows: list[Post] = msgspec.field(name="list")
    has_more: bool
    head_marker: NumericString | None
    tail_marker: NumericString | None
    #: Left out with ``counters=false``.
    counters: PostCounters | None = None


# --- earnings and payouts ----------------------------------------------------------------


class Transaction(Camel, kw_only=True):
    """What an earnings row and a chargeback's payment both are: one transaction's money."""

    id: str
    amount: float
    vat_amount: float
    tax_amount: float
    media_tax_amount: float
    net: float
    fee: float
    currency: str
    created_at: Timestamp
    description: str
    status: str
    user: UserSummary


class EarningsRow(Transaction, kw_only=True):
    payout_pending_days: int


class EarningsPage(Camel, kw_only=True):
    rows: list[EarningsRow] = msgspec.field(name="list")
    marker: UnixSeconds | None
    has_more: bool
    #: The next page's ``marker``; null on an empty page.
    next_marker: UnixSeconds | None
    #: Deprecated (``marker`` alone is exact); null on an empty page.
    next_marker_id: str | None = None


class Payment(Transaction, kw_only=True):
    """A chargeback's payment: the transaction it takes back."""


class Chargeback(Camel, kw_only=True):
    id: int
    created_at: Timestamp
    payment_type: str
    payment: Payment


class ChargebacksPage(Camel, kw_only=True):
    rows: list[Chargeback] = msgspec.field(name="list")
    marker: UnixSeconds
    has_more: bool | None = None


class PayoutRequest(Camel, kw_only=True):
    invoice_id: str
    created_at: Timestamp
    amount: float
    currency: str
    state: str
    reject_reason: str | None


class PayoutRequestsPage(Camel, kw_only=True):
    rows: list[PayoutRequest] = msgspec.field(name="list")
    marker: UnixSeconds
    has_more: bool | None = None


# --- promotions and trials -------------------------------------------------------------


class Promo(Camel, kw_only=True):
    id: int
    message: str
    raw_message: str
    has_related_promo: bool
    price: float
    type: str
    can_claim: bool
    claims_count: int
    subscribe_counts: int | None
    subscribe_days: int
    created_at: Timestamp
    finished_at: Timestamp | None
    is_finished: bool


class Trial(Camel, kw_only=True):
    id: int
    url: str
    trial_link_name: str
    subscribe_days: int
    subscribe_counts: int
    claim_counts: int
    created_at: Timestamp
    expired_at: Timestamp | None
    is_finished: bool


class PromoOrTrial(msgspec.Struct, kw_only=True):
    """Exactly one of ``promo`` and ``trial``."""

    promo: Promo | None = None
    trial: Trial | None = None


class PromotionsTrialsPage(Camel, kw_only=True):
    items: list[PromoOrTrial]
    has_more: bool


class PromotionsPage(Camel, kw_only=True):
    items: list[Promo]
    has_more: bool


# --- our own: the change events ------------------------------------------------------------


class Event(msgspec.Struct, kw_only=True):
    """One change event (docs/events.md)."""

    id: str
    type: str
    organization_id: int
    account_id: int | None
    occurred_at: Timestamp
    #: Where to continue after this event (``after``).
    cursor: str
    data: dict[str, Any]


class EventsPage(Camel, kw_only=True):
    rows: list[Event] = msgspec.field(name="list")
    has_more: bool
    #: ``after`` of the next poll: the last event's cursor, or ``after`` itself.
    cursor: str
