"""Chats and custom chat lists (live only).

Chat j of an account is with fan j of the account's fan pool and carries its own message
timeline, so its last message (and thus its place in the ``recent`` order) moves as the
clock advances, and a chat appears when its first message arrives. Flags that the payload
does not show but the filters use (priority, pinned, tipped) are drawn once per chat.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from litestar import get

from app.upstream import paths
from sandbox.core.errors import bad_request
from sandbox.core.params import enum_param, int_param
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY, iso
from sandbox.core.timeline import Timeline
from sandbox.core.users import fan_id, fan_pool_size, user_ref, user_summary
from sandbox.resources.live_common import (
    SearchQuery,
    html_text,
    limit_param,
    newest_visible,
    numbered_name,
    offset_page,
    offset_param,
    plain_text,
)
from sandbox.state import SandboxState

DEFAULT_CHATS = 60
DEFAULT_CHAT_LISTS = 8
MESSAGE_ID_BASE = 2_000_000_000
MESSAGE_STRIDE = 8192  # message ids interleave the chats: id = base + i * stride + chat
CHAT_LIST_ID_BASE = 1_200_000
FILTERS = ("priority", "pinned", "unread", "who_tipped")
_LIST_NAMES = ("VIP", "Big spenders", "Renewals off", "New this month", "Top tippers",
               "Custom requests", "Regulars", "Night owls", "Birthday club", "Bundle buyers")


@dataclass(frozen=True, slots=True)
class ChatSetup:
    """The per-chat constants: its fan, its message timeline and the hidden filter flags."""

    index: int
    user_id: int
    messages: Timeline
    priority: bool
    pinned: bool
    tipped: bool
    muted: bool
    purchased_feed: bool
    can_send: bool
    pinned_messages: int


@lru_cache(maxsize=64)
def chat_setups(seed: int, account_id: int, count: int, start: int, span: int) -> tuple[ChatSetup, ...]:
    key = derive_key(seed, account_id, "live.chats")
    setups = []
    for j in range(count):
        r = Rng(key, j)
        opened = start + r.below(max(1, span // 2))  # chats open during the first half
        per_day = 0.05 + r.random() * 3  # from one message in three weeks to three a day
        # A timeline of 1000 messages at that rate from ``opened`` on (it continues past
        # them): not anchored at the epoch, so chats do not share a last-message second.
        n = 1000
        gap = max(1, round(n * DAY / per_day))
        tipped = r.chance(0.3)
        setups.append(ChatSetup(
            index=j,
            user_id=fan_id(seed, account_id, j),
            messages=Timeline(opened, gap, n, MESSAGE_ID_BASE, MESSAGE_STRIDE, j),
            priority=r.chance(0.15),
            pinned=r.chance(0.1),
            tipped=tipped,
            muted=r.chance(0.05),
            purchased_feed=r.chance(0.4),
            can_send=r.chance(0.97),
            pinned_messages=r.below(4) if r.chance(0.2) else 0,
        ))
    return tuple(setups)


def account_chats(sandbox, account_id: int) -> tuple[ChatSetup, ...]:
    profile = sandbox.profile(account_id)
    # One chat per fan: never more chats than the fan pool has fans.
    count = min(profile.size("chats", DEFAULT_CHATS), fan_pool_size(profile.earnings))
    start = sandbox.history_start(account_id)
    return chat_setups(sandbox.seed, account_id, count, start, sandbox.config.epoch - start)


@dataclass(frozen=True, slots=True)
class ChatState:
    """A chat as of ``now``: its setup, its last message index and the draws about it."""

    setup: ChatSetup
    last: int
    created_at: int
    from_fan: bool
    unread: int
    is_tip: bool

    @property
    def message_id(self) -> int:
        return self.setup.messages.id_of(self.last)


def chat_state(seed: int, account_id: int, setup: ChatSetup, now: int) -> ChatState | None:
    last = newest_visible(setup.messages, now)
    if last < 0:
        return None  # no message yet: the chat does not exist yet
    r = Rng(derive_key(seed, account_id, "live.chats.message"), setup.messages.id_of(last))
    from_fan = r.chance(0.6)
    unread = r.randint(1, 6) if from_fan and r.chance(0.45) else 0
    is_tip = from_fan and setup.tipped and r.chance(0.25)
    return ChatState(setup, last, setup.messages.time_of(last), from_fan, unread, is_tip)


def chat_item(seed: int, account_id: int, chat: ChatState, with_users: bool) -> dict:
    setup = chat.setup
    r = Rng(derive_key(seed, account_id, "live.chats.text"), chat.message_id)
    media_count = r.below(4) if r.chance(0.3) else 0
    is_free = not (not chat.from_fan and media_count and r.chance(0.6))
    text = html_text(plain_text(r), r) if not chat.is_tip else "<p>I sent you a tip \U0001F49D</p>"
    giphy = f"sbx{r.next64() % 10**10:010d}" if media_count == 0 and r.chance(0.05) else None
    last_message = {
        "id": chat.message_id,
        "text": text,
        "isFree": is_free,
        "createdAt": iso(chat.created_at),
        "mediaCount": media_count,
        "isTip": chat.is_tip,
        "isOpened": not chat.from_fan or chat.unread == 0,
        "giphyId": giphy,
        "lockedText": not is_free and r.chance(0.5),
    }
    if with_users:
        sender = setup.user_id if chat.from_fan else account_id
        last_message["fromUser"] = {"id": sender, "_view": "s"}
    read_index = max(0, chat.last - chat.unread)
    item = {
        "lastMessage": last_message,
        "canSendMessage": setup.can_send,
        "canGoToProfile": not user_summary(seed, setup.user_id)["isDeleted"],
        "unreadMessagesCount": chat.unread,
        "lastReadMessageId": setup.messages.id_of(read_index),
        "hasUnreadTips": chat.is_tip and chat.unread > 0,
        "isMutedNotifications": setup.muted,
        "hasPurchasedFeed": setup.purchased_feed,
        "countPinnedMessages": setup.pinned_messages,
    }
    if with_users:
        item = {"withUser": user_ref(seed, setup.user_id), **item}
    return item


# --- chat lists ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChatList:
    id: int
    name: str
    share: float  # chance that a given chat belongs to the list
    posts_count: int


def chat_lists(sandbox, account_id: int) -> list[ChatList]:
    count = sandbox.profile(account_id).size("chat_lists", DEFAULT_CHAT_LISTS)
    key = derive_key(sandbox.seed, account_id, "live.chat_lists")
    out = []
    for k in range(count):
        r = Rng(key, k)
        share = 0.1 + 0.4 * r.random()
        out.append(ChatList(CHAT_LIST_ID_BASE + k, numbered_name(_LIST_NAMES, k), share, r.below(40)))
    return out


def in_list(seed: int, account_id: int, chat_list: ChatList, chat_index: int) -> bool:
    return Rng(derive_key(seed, account_id, "live.chat_lists.member", chat_list.id), chat_index).chance(
        chat_list.share
    )


def chat_list_item(chat_list: ChatList) -> dict:
    return {"id": chat_list.id, "type": "custom", "name": chat_list.name, "postsCount": chat_list.posts_count}


# --- routes -------------------------------------------------------------------------------
def _matches_query(seed: int, user_id: int, needle: str) -> bool:
    user = user_summary(seed, user_id)
    return any(needle in user[field].lower() for field in ("username", "name", "displayName"))


def _passes_filter(chat: ChatState, name: str) -> bool:
    if name == "priority":
        return chat.setup.priority
    if name == "pinned":
        return chat.setup.pinned
    if name == "unread":
        return chat.unread > 0
    return chat.setup.tipped  # who_tipped


@get(paths.route(paths.CHATS), sync_to_thread=False)
def list_chats(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    limit: str | None = None,
    offset: str | None = None,
    skip_users: str | None = None,
    order: str | None = None,
    filter: str | None = None,  # noqa: A002 - the upstream's parameter name
    list_id: str | None = None,
    search: SearchQuery = None,
) -> dict:
    size = limit_param(limit, 10, 100)
    skip = offset_param(offset)
    users = enum_param("skip_users", skip_users, ("all", "none"), "all")
    direction = enum_param("order", order, ("recent", "old"), "recent")
    chosen_filter = enum_param("filter", filter, FILTERS)
    chosen_list = None
    if list_id not in (None, ""):
        if chosen_filter is not None:
            raise bad_request("list_id", "mutually exclusive with filter")
        wanted = int_param("list_id", list_id, 0, 1)
        chosen_list = next((cl for cl in chat_lists(sandbox, account_id) if cl.id == wanted), None)
        if chosen_list is None:
            raise bad_request("list_id", "no such chat list")
    needle = (search or "").strip().lower()

    seed = sandbox.seed
    chats = []
    for setup in account_chats(sandbox, account_id):
        chat = chat_state(seed, account_id, setup, now)
        if chat is None:
            continue
        if chosen_filter and not _passes_filter(chat, chosen_filter):
            continue
        if chosen_list and not in_list(seed, account_id, chosen_list, setup.index):
            continue
        if needle and not _matches_query(seed, setup.user_id, needle):
            continue
        chats.append(chat)
    # Last message time, then message id: a strict order, so offset pages never overlap.
    chats.sort(key=lambda c: (c.created_at, c.message_id), reverse=direction == "recent")
    page, has_more = offset_page(chats, skip, size)
    with_users = users == "none"
    return {"list": [chat_item(seed, account_id, c, with_users) for c in page], "hasMore": has_more}


@get(paths.route(paths.CHAT_LISTS), sync_to_thread=False)
def list_chat_lists(
    account_id: int, sandbox: SandboxState, limit: str | None = None, offset: str | None = None
) -> dict:
    size = limit_param(limit, 10, 100)
    skip = offset_param(offset)
    page, has_more = offset_page(chat_lists(sandbox, account_id), skip, size)
    return {"list": [chat_list_item(cl) for cl in page], "hasMore": has_more}


ROUTES = [list_chats, list_chat_lists]
