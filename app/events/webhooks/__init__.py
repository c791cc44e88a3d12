"""Webhooks: endpoints, Standard Webhooks signatures, the dispatcher (docs/events.md)."""
