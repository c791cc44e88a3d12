"""The upstream's enumerations that routes, store and sync share: one definition each.

Routes declare parameters with the ``Literal`` types (so the OpenAPI schema lists the
values); the store and the sync iterate the tuples derived from them.
"""

from __future__ import annotations

from typing import Literal, get_args

EarningsType = Literal["subscribes", "tips", "post", "chat_messages", "stream"]
TipsSource = Literal["profile", "post_all", "chat", "stream", "story"]
ChartBy = Literal[
    "total", "subscribes", "tips", "post", "chat_messages", "stream",
    "tips_profile", "tips_post", "tips_chat", "tips_stream", "tips_story",
]

EARNINGS_TYPES: tuple[str, ...] = get_args(EarningsType)
TIPS_SOURCES: tuple[str, ...] = get_args(TipsSource)

#: The chart's ``by`` values as the (type, tips source) they select; None selects all.
CHART_SERIES: dict[str, tuple[str | None, str | None]] = {
    "total": (None, None),
    **{t: (t, None) for t in EARNINGS_TYPES},
    **{f"tips_{s.removesuffix('_all')}": ("tips", s) for s in TIPS_SOURCES},
}
assert tuple(CHART_SERIES) == get_args(ChartBy)
