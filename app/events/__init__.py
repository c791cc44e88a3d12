"""Change events: their types (types.py; those of the synced tables come from their
declarations), their JSON form and the feed cursor, the feed's SQL (feed.py), and the webhooks
that deliver them (webhooks/). See docs/events.md."""

from app.events.types import EVENT_TYPES, Cursor, event_json, parse_types

__all__ = ["EVENT_TYPES", "Cursor", "event_json", "parse_types"]
