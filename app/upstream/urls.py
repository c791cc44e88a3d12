"""The upstream request's URL pieces: path templates filled safely, query values encoded."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from urllib.parse import quote


def build_path(path_template: str, path_params: Mapping[str, object]) -> str:
    """Fill a path template such as ``/api/accounts/{account_id}/chats``.

    Each value is percent-encoded as one path segment, so a value can never add a segment.
    """
    encoded = {name: quote(str(value), safe="") for name, value in path_params.items()}
    try:
        return path_template.format_map(encoded)
    except KeyError as exc:
        raise ValueError(f"path parameter {exc} missing for {path_template!r}") from None


def encode_query(params: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """Query pairs as the upstream expects them.

    ``None`` means "not given" and is dropped; booleans are ``true``/``false`` (Python
    would say ``True``); datetimes are ISO 8601; a list or tuple repeats the parameter.
    """
    pairs: list[tuple[str, str]] = []
    for name, value in (params or {}).items():
        values = value if isinstance(value, list | tuple) else (value,)
        pairs.extend((name, _query_value(item)) for item in values if item is not None)
    return pairs


def _query_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)
