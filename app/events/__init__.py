"""Change events: their types, their JSON form, the feed cursor. See docs/events.md."""

from app.events.types import EVENT_TYPES, Cursor, event_json, parse_types

__all__ = ["EVENT_TYPES", "Cursor", "event_json", "parse_types"]
