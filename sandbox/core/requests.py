"""Request counters of the upstream surface, per account and per resource.

Every ``/api/...`` request the gate sees is counted under its *resource*: the path after
``/api/accounts/{id}/`` with numeric segments replaced by ``{id}`` (``earnings/transactions``,
``tracking-links/{id}/stats``). Answers refused with 429 (random faults or the per-account
rate limit) are counted as ``rate_limited`` as well, so a benchmark or a test can read how
many upstream calls an account cost, and how many of them were refused.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

_ACCOUNT_PREFIX = re.compile(r"^/api/accounts/\d+/?")
_NUMBER = re.compile(r"(?<=/)\d+(?=/|$)")


def resource_of(path: str) -> str:
    """``/api/accounts/7/tracking-links/12/stats`` -> ``tracking-links/{id}/stats``."""
    rest = _ACCOUNT_PREFIX.sub("", path)
    if rest == path:  # not an account path (e.g. /api/gifs/trending)
        rest = path.removeprefix("/api/")
    return _NUMBER.sub("{id}", "/" + rest).lstrip("/") or "account"


class RequestCounters:
    """Counts per (account, resource); the account is None for routes without one."""

    def __init__(self) -> None:
        self._counts: dict[int | None, Counter[str]] = defaultdict(Counter)
        self._refused: dict[int | None, Counter[str]] = defaultdict(Counter)

    def count(self, account_id: int | None, resource: str) -> None:
        self._counts[account_id][resource] += 1

    def refused(self, account_id: int | None, resource: str) -> None:
        self._refused[account_id][resource] += 1

    def of_account(self, account_id: int) -> dict:
        return {
            "requests": dict(self._counts.get(account_id, {})),
            "rate_limited": dict(self._refused.get(account_id, {})),
        }

    def totals(self) -> dict:
        """Every account together, by resource."""
        requests: Counter[str] = Counter()
        refused: Counter[str] = Counter()
        for counts in self._counts.values():
            requests.update(counts)
        for counts in self._refused.values():
            refused.update(counts)
        return {"requests": dict(requests), "rate_limited": dict(refused), "accounts": len(self._counts)}

    def clear(self) -> None:
        self._counts.clear()
        self._refused.clear()
