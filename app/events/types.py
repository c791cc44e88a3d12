"""Event types, the JSON form of an event (feed item and webhook body), and the feed cursor.

The feed's order is (tx, id): the writing transaction's id, then the event's. A cursor
names the last event a consumer has, as ``"<tx>.<id>"``; ``"0.0"`` is the beginning.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.db.declaration import declaration, synced_tables
from app.db.metadata import metadata

#: Every event type, with what writes it (the triggers of migrations 0006 and 0019): those of
#: the synced tables' rows as their models declare them, then the account's and the sync's.
EVENT_TYPES: dict[str, str] = {
    **{name: meaning for table in synced_tables(metadata) if (events := declaration(table).events)
       for name, meaning in events.types(table.name).items()},
    "account.credentials_rejected": "the upstream refused the account's credential",
    "sync.backfill_completed": "the account's first whole-history backfill finished",
}

_CURSOR = re.compile(r"([0-9]{1,19})\.([0-9]{1,19})")
_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True, order=True)
class Cursor:
    tx: int = 0
    id: int = 0

    @classmethod
    def parse(cls, raw: str | None) -> Cursor | None:
        """The cursor in ``raw``, or None when it is not one."""
        if raw is None:
            return cls()
        match = _CURSOR.fullmatch(raw)
        if match is None:
            return None
        tx, id_ = int(match[1]), int(match[2])
        if tx > _MAX or id_ > _MAX:
            return None
        return cls(tx, id_)

    def __str__(self) -> str:
        return f"{self.tx}.{self.id}"


def parse_types(raw: str | None) -> list[str] | None:
    """``"earnings.created,posts.created"`` as a list; None for all. Raises ValueError
    naming the first unknown type."""
    if raw is None or not raw.strip():
        return None
    types = [t.strip() for t in raw.split(",") if t.strip()]
    for name in types:
        if name not in EVENT_TYPES:
            raise ValueError(f"unknown event type {name!r}; known: {', '.join(EVENT_TYPES)}")
    return types


def event_json(row: dict[str, Any]) -> dict[str, Any]:
    """An events row (dict_row) as the feed and the webhooks send it."""
    occurred: datetime = row["occurred_at"]
    return {
        "id": f"evt_{row['event_id'].hex}",
        "type": row["type"],
        "organization_id": row["organization_id"],
        "account_id": row["account_id"],
        "occurred_at": occurred.astimezone(UTC).isoformat(),
        "cursor": str(Cursor(row["tx"], row["id"])),
        "data": row["payload"],
    }


#: The event ``relay webhooks test`` sends one endpoint at once: never stored, never in the
#: feed, not one of ``EVENT_TYPES`` (an endpoint cannot subscribe to it; it always gets it).
TEST_EVENT_TYPE = "webhook.test"


def webhook_test_event(organization_id: int, endpoint_id: int) -> dict[str, Any]:
    """A ``webhook.test`` event for ``endpoint_id``, shaped like ``event_json``'s (no account,
    no feed position: ``cursor`` is null)."""
    return {
        "id": f"evt_{uuid.uuid4().hex}",
        "type": TEST_EVENT_TYPE,
        "organization_id": organization_id,
        "account_id": None,
        "occurred_at": datetime.now(UTC).isoformat(),
        "cursor": None,
        "data": {"endpoint_id": endpoint_id, "message": "a test event sent by `relay webhooks test`"},
    }
