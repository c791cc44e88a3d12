"""Pieces several answers embed."""

from __future__ import annotations

from typing import Annotated

import msgspec

#: An ISO 8601 timestamp with its UTC offset, e.g. ``2025-12-31T23:06:44+00:00``.
Timestamp = Annotated[str, msgspec.Meta(description="ISO 8601 timestamp with UTC offset.")]
#: A calendar day, ``YYYY-MM-DD``.
Day = Annotated[str, msgspec.Meta(description="A calendar day, YYYY-MM-DD.")]
#: A counter the upstream sends as a string of digits.
NumericString = Annotated[str, msgspec.Meta(description="A number written as a string.")]
UnixSeconds = Annotated[int, msgspec.Meta(description="Unix seconds.")]


class Camel(msgspec.Struct, kw_only=True, rename="camel"):
    """A shape whose members are camelCase (``has_more`` is sent as ``hasMore``)."""


class UserSummary(Camel, kw_only=True):
    """A user embedded in earnings and chargeback rows (chats embed a shorter one)."""

    id: int
    name: str
    username: str
    display_name: str | None = None
    view: str | None = None
    is_verified: bool | None = None
    is_deleted: bool | None = None
    is_active: bool | None = None
    avatar: str | None = None
    avatar_thumbs: dict[str, str] | None = None


class UserRef(msgspec.Struct, kw_only=True):
    """A user by id and view (``lastMessage.fromUser``, a post's ``author``)."""

    id: int
    view: str = msgspec.field(name="_view")


class ChatUser(UserRef, kw_only=True):
    """The user a chat is with (present with ``skip_users=none``)."""

    username: str
    name: str


class DatePoint(msgspec.Struct, kw_only=True):
    """One bucket of a chart: its start and its value."""

    date: str
    count: float


class DayCount(msgspec.Struct, kw_only=True):
    """One day of a campaigns chart (``YYYY-MM-DD``) and its count."""

    date: Day
    count: int


class Change(msgspec.Struct, kw_only=True):
    """A total and its percent change against the previous window."""

    total: float
    delta: float


class MoneyChange(msgspec.Struct, kw_only=True):
    """Net total, gross and the percent change of the net."""

    total: float
    gross: float
    delta: float
