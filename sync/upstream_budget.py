"""The per-account upstream request budget, shared by all worker processes through PostgreSQL.

Each attempt of an upstream request of the sync (a retry too: ``take_slot``) first takes a
time slot from the account's token bucket (``upstream_budget``, one row per account,
``RELAY_SYNC_UPSTREAM_RPS`` slots per second).
Taking one is a single atomic upsert on the database's clock, so every process on every
machine sees the same bucket and no two callers get the same slot:

- **incremental** work *reserves*: the bucket may go negative, and the caller sleeps until
  its slot (``-tokens / rate`` seconds). Reserving never loses its turn; only a caller
  woken over a slot late (its process stalled) reserves once more, so the callers one
  stall woke do not send together.
- **backfill** (and reconcile) work only takes a token that is there now and leaves at least
  one for the next incremental request; otherwise it waits a slot and asks again. So
  incremental passes go first whenever both want the same account's budget.

The bucket holds at most ``burst`` tokens (1 by default: evenly spaced requests), so the
upstream's own per-account limit, set to the same rate, sees no 429 from the sync.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager

from psycopg_pool import AsyncConnectionPool

# Refill, then take one token; tokens may go negative (slots promised to waiting callers).
# The clock is read once, in VALUES, and the update uses it as excluded.updated_at: Citus
# refuses functions that are not IMMUTABLE in DO UPDATE SET (docs/scaling.md, item 5).
#: The account's tokens refilled up to now (the clock the row was given: excluded.updated_at).
_REFILLED = "least(%(burst)s, b.tokens + extract(epoch FROM excluded.updated_at - b.updated_at) * %(rate)s)"
_RESERVE = f"""
INSERT INTO upstream_budget AS b (account_id, tokens, updated_at)
VALUES (%(account_id)s, %(burst)s - 1, clock_timestamp())
ON CONFLICT (account_id) DO UPDATE
SET tokens = {_REFILLED} - 1, updated_at = excluded.updated_at
RETURNING tokens
"""

# Take a token only if one is there now with one more left over for incremental work.
_TAKE_SPARE = _RESERVE.replace(
    "RETURNING tokens", f"WHERE {_REFILLED} >= least(%(burst)s, 1) + %(spare)s\nRETURNING tokens"
)


class UpstreamBudget:
    """Slots of the per-account budget; ``rate`` 0 means no budget (nothing is asked)."""

    def __init__(self, pool: AsyncConnectionPool, rate: float, burst: float = 1.0) -> None:
        self.pool = pool
        self.rate = rate
        self.burst = max(1.0, burst)

    async def acquire(self, account_id: int, *, backfill: bool = False) -> float:
        """Wait for the account's next slot; returns the seconds waited."""
        if self.rate <= 0:
            return 0.0
        params = {"account_id": account_id, "rate": self.rate, "burst": self.burst,
                  "spare": 1.0 if self.burst > 1 else 0.0}
        waited, stale = 0.0, False
        while True:
            async with self.pool.connection() as conn:
                cur = await conn.execute(_TAKE_SPARE if backfill else _RESERVE, params)
                row = await cur.fetchone()
            if row is not None:
                delay = max(0.0, -row[0] / self.rate)
                if delay:
                    woke = await _sleep_until(delay)
                    if woke > 1.0 / self.rate and not stale:  # only a reservation waits
                        # Woken over a slot late (this process stalled): the slot has
                        # passed, and the callers the same stall woke would send together.
                        stale = True
                        waited += delay + woke
                        continue
                return waited + delay
            # Backfill: no spare token now; look again after one slot.
            await asyncio.sleep(1.0 / self.rate)
            waited += 1.0 / self.rate


async def _sleep_until(delay: float) -> float:
    """Sleep ``delay`` seconds; returns how much later than that it woke."""
    loop = asyncio.get_running_loop()
    due = loop.time() + delay
    await asyncio.sleep(delay)
    return loop.time() - due


async def take_slot(
    budget: UpstreamBudget | None, account_id: int, pacer: AbstractAsyncContextManager | None = None
) -> None:
    """What the sync awaits before each attempt of an upstream request, retries included,
    so a retry after a 429 is paced like any request: a slot of the account's budget
    (reserved). With the process's ``pacer`` (backfill and reconcile pages): past the
    pacer first, then only a spare slot, so they yield to incremental work."""
    if pacer is not None:
        async with pacer:
            pass
    if budget is not None:
        await budget.acquire(account_id, backfill=pacer is not None)
