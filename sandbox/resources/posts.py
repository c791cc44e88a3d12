"""Posts feed: filters, five orders and a tailMarker cursor (see docs/upstream.md)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from litestar import get
from litestar.params import Parameter

from app.upstream import paths
from sandbox.core.errors import bad_request
from sandbox.core.params import bool_param, enum_param
from sandbox.domain.posts import PostRecord
from sandbox.state import SandboxState

# order -> (sort key, ascending?). Keys are ascending tuples; desc orders negate. The post
# id breaks ties of postedAtPrecise (possible only on an account with ``ties``), so every
# order is a strict total order.
ORDERS = {
    "publish_date_desc": (lambda p: (-p.micros, -p.payload["id"]), False),
    "publish_date_asc": (lambda p: (p.micros, p.payload["id"]), True),
    "favorites_count_desc": (lambda p: (-p.favorites, -p.micros, -p.payload["id"]), False),
    "tips_summ_desc": (lambda p: (-p.tips_cents, -p.micros, -p.payload["id"]), False),
    "tips_summ_asc": (lambda p: (p.tips_cents, p.micros, p.payload["id"]), True),
}
TIME_ORDERS = ("publish_date_desc", "publish_date_asc")
MEDIA_FILTERS = {"photos": {"photo"}, "videos": {"video"}, "audios": {"audio"}, "medias": {"photo", "video", "audio"}}
ARCHIVES = ("archived", "private_archived")


def _label(name: str, raw: str | None):
    if raw is None or raw == "":
        return None
    if raw in ARCHIVES:
        return raw
    if raw.isdigit():
        return int(raw)
    raise bad_request(name, "must be a numeric label id, archived or private_archived")


def _micros(name: str, raw: str) -> int:
    try:
        return int(Decimal(raw) * 1_000_000)
    except InvalidOperation:
        raise bad_request(name, "must be unix seconds with six decimals (a tailMarker)") from None


def _in_bucket(p: PostRecord, bucket) -> bool:
    if bucket == "archived":
        return p.archived
    if bucket == "private_archived":
        return p.private_archived
    return bucket in p.labels


def select(posts: list[PostRecord], media_type, label, exclude_label, query, pinned) -> list[PostRecord]:
    """The filters, in one pass. Without ``label=archived|private_archived`` the feed holds
    neither archived nor private-archived posts."""
    wanted_media = MEDIA_FILTERS.get(media_type)
    needle = query.lower() if query else None
    out = []
    for p in posts:
        if label in ARCHIVES:
            if not _in_bucket(p, label):
                continue
        elif p.archived or p.private_archived:
            continue
        elif label is not None and label not in p.labels:
            continue
        if exclude_label is not None and _in_bucket(p, exclude_label):
            continue
        if wanted_media is not None and not (p.media_types & wanted_media):
            continue
        if pinned is not None and p.pinned != pinned:
            continue
        if needle is not None and needle not in p.caption:
            continue
        out.append(p)
    return out


@get(paths.route(paths.POSTS), sync_to_thread=False)
def posts(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    limit: str | None = None,
    media_type: str | None = None,
    label: str | None = None,
    exclude_label: str | None = None,
    text_query: str | None = Parameter(query="query", default=None),
    pinned: str | None = None,
    order: str | None = None,
    counters: str | None = None,
    before_publish_time: str | None = None,
    after_publish_time: str | None = None,
) -> dict:
    order = enum_param("order", order, ORDERS, "publish_date_desc")
    try:
        size = 10 if not limit else int(limit)
    except ValueError:
        raise bad_request("limit", "must be an integer") from None
    if size < 1:
        raise bad_request("limit", "must be >= 1")
    size = min(size, 100)  # above 100 is clamped, as the upstream does
    sort_key, ascending = ORDERS[order]
    cursor_name, cursor_raw, other = (
        ("after_publish_time", after_publish_time, before_publish_time) if ascending
        else ("before_publish_time", before_publish_time, after_publish_time)
    )
    if other:
        wrong = "before_publish_time" if ascending else "after_publish_time"
        raise bad_request(wrong, f"not allowed with order={order}; use {cursor_name}")
    source = sandbox.world(account_id).posts
    rows = select(
        source.visible(now),
        enum_param("media_type", media_type, MEDIA_FILTERS),
        _label("label", label),
        _label("exclude_label", exclude_label),
        text_query,
        bool_param("pinned", pinned),
    )
    rows.sort(key=sort_key)
    if cursor_raw:
        micros = _micros(cursor_name, cursor_raw)
        if order in TIME_ORDERS:
            # A time bound: the posts strictly before / after it (ties at the bound and all).
            bound = micros if ascending else -micros
            rows = [p for p in rows if sort_key(p)[0] > bound]
        else:
            # Value orders: the marker names the last post seen. postedAtPrecise is unique
            # unless the account has ties; then it names the newest post of that value.
            named = source.by_micros.get(micros)
            if named is None:
                raise bad_request(cursor_name, f"names no post (order={order} needs a tailMarker)")
            rows = [p for p in rows if sort_key(p) > sort_key(named)]
    page = rows[:size]
    body = {
        "list": [p.payload for p in page],
        "hasMore": len(rows) > size,
        "headMarker": page[0].payload["postedAtPrecise"] if page else "",
        "tailMarker": page[-1].payload["postedAtPrecise"] if page else "",
    }
    if bool_param("counters", counters, True):
        body["counters"] = source.counters(now)
    return body


def posts_truth(sandbox, account_id, lo, hi, params):
    """All visible posts (any archive state) with lo <= postedAt <= hi."""
    for p in sandbox.world(account_id).posts.visible(hi):
        if p.micros >= lo * 1_000_000:
            yield f"{p.payload['id']}|{p.payload['postedAtPrecise']}|{p.favorites}|{p.payload['tipsAmount']}"


ROUTES = [posts]
TRUTH = {"posts": posts_truth}
