"""Pages that never split a tie: the rule behind every cursor a client rebuilds by hand.

The spec's cursors name a value of the page's last row (the earnings ``nextMarker`` second,
the posts ``tailMarker``, the direct-messages ``date``), and the next page holds the rows
strictly beyond that value. That is exact only if no page ends inside a group of rows that
share the value (a *tie*), so no page does (issue 17, docs/api-decisions.md):

- when the row after a full page shares the page's last value, the page ends before that
  value (the group opens the next page whole);
- when the whole page is one value with more rows of it after, the page takes the whole
  group along (it then holds more rows than asked for).

``whole_groups`` applies the rule to rows the caller has already read (one more than the
page, to see a split). ``whole_live_page`` reads them from an upstream whose own cursor has
the flaw (strictly beyond a value, no tie-breaker): it asks for one more row than the page,
and completes a busy group by asking again with an inclusive bound and keeping only that
group. An upstream request returns at most ``max_ask`` rows, so a group larger than that
cannot be read whole; that is logged (the upstream's limit, docs/api-decisions.md).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import TypeVar

Row = TypeVar("Row")
log = logging.getLogger(__name__)


def whole_groups(
    rows: Sequence[Row], size: int, key: Callable[[Row], Hashable]
) -> tuple[list[Row], Hashable | None]:
    """A page of at most ``size`` rows out of ``rows`` (in page order, up to ``size + 1`` of
    them) that does not split a group of equal ``key``. Returns the page and, when the page
    is one group with more rows after it, that group's key: the caller must add the rest."""
    if len(rows) <= size or key(rows[size - 1]) != key(rows[size]):
        return list(rows[:size]), None
    split = key(rows[size - 1])
    if key(rows[0]) != split:
        return [r for r in rows[:size] if key(r) != split], None
    return list(rows[:size]), split


#: One upstream read of the page's window, in page order: ``fetch(limit)`` reads after the
#: client's cursor; ``fetch(limit, through=k)`` reads from key ``k`` inclusive (the rows of
#: that group first, then what follows). Returns the rows and the upstream's ``hasMore``.
Fetch = Callable[..., Awaitable[tuple[list, bool]]]


async def whole_live_page(
    fetch: Fetch, limit: int, key: Callable[[Row], Hashable], *, max_ask: int = 100
) -> tuple[list[Row], bool]:
    """One page of at most ``limit`` rows (more only for one busy group) that ends between
    groups, read through ``fetch``; returns the page and whether rows follow it."""
    rows, more = await fetch(min(limit + 1, max_ask))
    if len(rows) <= limit and more and rows:
        # limit == max_ask: the row after the page was not seen. Re-read the last group from
        # its first row, one row more than the page holds of it, to see whether it goes on.
        tail = key(rows[-1])
        held = sum(1 for r in rows if key(r) == tail)
        if held == max_ask:
            _lost(tail)
            return rows, more
        look, _ = await fetch(held + 1, through=tail)
        rows = rows[:-held] + look
    if len(rows) <= limit:
        return rows, more
    page, split = whole_groups(rows, limit, key)
    if split is None:
        return page, True
    group, group_more = await fetch(max_ask, through=split)
    same = [r for r in group if key(r) == split]
    if len(same) == max_ask and group_more:
        _lost(split)
    return same, len(same) < len(group) or group_more


def _lost(value: Hashable) -> None:
    log.warning("more rows share %r than one upstream request returns: the rest of them cannot be paged to", value)
