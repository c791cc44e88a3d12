"""Scheduled chat messages (live only): the next ones to be published, soonest first.

Scheduled message i is published at row i's time of a timeline that runs into the future;
it was created (scheduled) a drawn 1 hour to 14 days before that. It is listed while
``createdDateTime <= now < publishDateTime``: it appears when scheduled and leaves when
published, as the clock moves.
"""

from __future__ import annotations

from litestar import get

from app.upstream import paths
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY, iso
from sandbox.core.timeline import Timeline
from sandbox.resources.live_common import html_text, limit_param, plain_text, rate_timeline
from sandbox.state import SandboxState

SCHEDULED_PER_DAY = 2.9  # non-round: rows off round clock times
SCHEDULE_ID_BASE = 6_000_000
MESSAGE_ID_BASE = 6_500_000_000
MAX_LEAD = 14 * DAY


def scheduled_timeline(sandbox, account_id: int) -> Timeline:
    return rate_timeline(sandbox, account_id, "scheduled_chats", SCHEDULED_PER_DAY, SCHEDULE_ID_BASE)


def lead_seconds(seed: int, account_id: int, i: int) -> int:
    return Rng(derive_key(seed, account_id, "live.schedules.lead"), i).randint(3600, MAX_LEAD)


def scheduled_item(seed: int, account_id: int, tl: Timeline, i: int) -> dict:
    publish = tl.time_of(i)
    r = Rng(derive_key(seed, account_id, "live.schedules"), i)
    from_queue = r.chance(0.4)  # mass messages go through the send queue
    return {
        "id": tl.id_of(i),
        "type": "chat",
        "publishDateTime": iso(publish),
        "createdDateTime": iso(publish - lead_seconds(seed, account_id, i)),
        "entity": {
            "responseType": "message",
            "id": MESSAGE_ID_BASE + i,
            "text": html_text(plain_text(r), r),
            "isFromQueue": from_queue,
            "queueId": 80_000_000 + i if from_queue else 0,
        },
    }


@get(paths.route(paths.SCHEDULES_LATER_CHAT), sync_to_thread=False)
def later_chats(account_id: int, sandbox: SandboxState, now: int, limit: str | None = None) -> dict:
    size = limit_param(limit, 10, 50)
    tl = scheduled_timeline(sandbox, account_id)
    seed = sandbox.seed
    upcoming = [
        i for i in tl.window(now + 1, now + MAX_LEAD)
        if tl.time_of(i) - lead_seconds(seed, account_id, i) <= now
    ]
    return {"list": [scheduled_item(seed, account_id, tl, i) for i in upcoming[:size]]}


ROUTES = [later_chats]
