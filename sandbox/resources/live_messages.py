"""Direct-message statistics (live only): one row per direct message the creator sent.

Paging follows the spec: by default ``end_date`` is the cursor (the next page passes the
``date`` of the previous page's last item; ``end_date`` is exclusive, and rows never share a
second, so that neither repeats nor skips a row); with ``query`` set the pages are
offset-based inside the [start_date, end_date) window. An account with ``ties`` puts many
messages in one second: a page that ends inside a second then loses the rest of it on the
next page, the flaw of this cursor that Creator Relay's route works around.
"""

from __future__ import annotations

from litestar import get

from app.upstream import paths
from sandbox.core.errors import bad_request
from sandbox.core.params import TWO_YEARS, time_param
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY, iso
from sandbox.core.timeline import Timeline
from sandbox.resources.live_common import (
    SearchQuery,
    html_text,
    limit_param,
    offset_page,
    offset_param,
    plain_text,
    rate_timeline,
)
from sandbox.state import SandboxState

MESSAGES_PER_DAY = 1.7  # non-round rates keep the rows off round clock times
ID_BASE = 3_100_000_000
SCAN_LIMIT = 200_000  # rows a text search may examine; far above any configured history


def messages_timeline(sandbox, account_id: int) -> Timeline:
    return rate_timeline(sandbox, account_id, "direct_messages", MESSAGES_PER_DAY, ID_BASE)


def message_row(seed: int, account_id: int, tl: Timeline, i: int) -> tuple[dict, str]:
    """The stats item of message i and its plain text (what ``query`` searches)."""
    r = Rng(derive_key(seed, account_id, "live.direct_messages"), i)
    plain = plain_text(r)
    sent = r.randint(1, 40)
    is_tip = r.chance(0.03)
    media = 0 if is_tip else (r.below(5) if r.chance(0.5) else 0)
    item = {
        "id": tl.id_of(i),
        "date": iso(tl.time_of(i)),
        "text": html_text(plain, r),
        "sentCount": sent,
        "viewedCount": r.randint(0, sent),
        "mediaCount": media,
        "isFree": media == 0 or r.chance(0.4),
        "isTip": is_tip,
    }
    return item, plain


@get(paths.route(paths.MESSAGES_STATS), sync_to_thread=False)
def direct_message_stats(
    account_id: int,
    sandbox: SandboxState,
    now: int,
    limit: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    search: SearchQuery = None,
    offset: str | None = None,
) -> dict:
    size = limit_param(limit, 10, 100)
    lo = time_param("start_date", start_date, now - TWO_YEARS)
    # Exclusive upper bound (the cursor); default: the end of today. A bare date keeps
    # its whole day, like an inclusive bound would.
    end = time_param("end_date", end_date, now - now % DAY + DAY - 1, end=True)
    if not end_date or len(end_date.strip()) == 10:
        end += 1
    if end <= lo:
        raise bad_request("end_date", "must be after start_date")
    hi = min(end - 1, now)
    tl = messages_timeline(sandbox, account_id)
    window = tl.window(lo, hi)
    seed = sandbox.seed
    needle = (search or "").strip().lower()
    if not needle:
        # Cursor mode: offset is ignored, the caller moves end_date instead.
        newest_first = range(window.stop - 1, window.start - 1, -1)
        items = [message_row(seed, account_id, tl, i)[0] for i in newest_first[:size]]
        return {"hasMore": len(window) > size, "items": items}
    skip = offset_param(offset)
    matches = []
    for i in range(window.stop - 1, max(window.start, window.stop - SCAN_LIMIT) - 1, -1):
        item, plain = message_row(seed, account_id, tl, i)
        if needle in plain.lower():
            matches.append(item)
            if len(matches) > skip + size:
                break  # one row past the page is enough to know hasMore
    page, has_more = offset_page(matches, skip, size)
    return {"hasMore": has_more, "items": page}


def direct_messages_truth(sandbox, account_id, lo, hi, params):
    """The ids of the messages with lo <= date <= hi (for cursor walk tests)."""
    tl = messages_timeline(sandbox, account_id)
    return (str(tl.id_of(i)) for i in tl.window(lo, hi))


ROUTES = [direct_message_stats]
TRUTH = {"direct_messages": direct_messages_truth}
