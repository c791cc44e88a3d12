"""The gatekeeper: admits a request from what this process holds, or through the statement.

Most requests of a busy key need no database work. The gatekeeper keeps what the gate
statement told it:

- the keys it has seen (organization, role's permissions, expiry; by value too, the ones it
  admitted, so they are not hashed again: ``KeyDigests``) and, per organization,
  the accounts it has asked about (connected or not, the stored credential): forgotten
  whenever ``app.gate.listener`` hears of a change to keys, accounts or roles, and at the
  latest after ``KNOWN_SECONDS``;
- per organization, an allowance of admissions the statement reserved for this process
  (``app.gate.allowance``), and the next one once the current one runs low: a background
  task asks for it, so no request waits for it and the counts stay in order.

A request whose key and account are known and whose organization has an allowance left is
admitted here (``admit_here``), in a few microseconds, with the same verdicts (403, 404, 409)
the statement would give. Any other request goes to the ``Meter`` (``admit``: one
statement per batch, as it always did), asking for an allowance sized to the
organization's recent rate. A request the statement defers (it did not fit while an
allowance was out) is taken from this process's allowance if it holds one, else asked
again, for a final answer, once the reservation has ended (``_after_reservations``).
A request that finds the current allowance spent while the next one is being reserved
waits for that one rather than be counted beside it (``_after_refill``); one that finds it
ended by time with admissions left has them given back first (``_rest_back``): either way
the statement's counters, and the request's headers, hold no admission nobody took.
Without a live listener nothing is held and every request goes to the statement.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Protocol

from app.gate.allowance import Allowance, Demand, Unused, minute_ending
from app.gate.keys import KeyDigests
from app.gate.statement import DEFAULT_HOLD, GateResult, MeterRequest
from app.params import BIGINT_MAX

logger = logging.getLogger(__name__)

#: Longest a key or an account is trusted without being read again (a backstop: a change
#: normally reaches the process through its listener at once).
KNOWN_SECONDS = 30.0
#: Most keys (and, apart, accounts) a process holds; past it, it starts again from nothing.
MAX_HELD = 100_000
#: Longest a deferred request waits for the allowances out to end (``_after_reservations``).
MAX_DEFER_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class KnownKey:
    key_id: int
    key_hash: bytes
    organization_id: int
    permissions: frozenset[str]
    expires_at: float | None  # unix seconds (a rotated key's end), on the database's clock
    learned: float  # monotonic


@dataclass(frozen=True, slots=True)
class KnownAccount:
    upstream_token: str | None  # as stored (encrypted); None when not owned
    learned: float
    #: The account check's refusal, in the statement's order: 404 when the organization does
    #: not own it, 409 when it is disconnected (``relay accounts disconnect``), else None.
    verdict: int | None


class Trusted(Protocol):
    """Whether what the gatekeeper holds can be used: a live listener (``app.gate.listener``)."""

    live: bool


class Trust:
    """Nobody listens: nothing held can be used."""

    live = False


class Gatekeeper:
    def __init__(
        self, meter: Callable[[MeterRequest], Awaitable[GateResult]], trust: Trusted | None = None,
        *, hold: float = DEFAULT_HOLD, max_deferred: int = 64,
    ) -> None:
        self._meter = meter
        self._trust: Trusted = trust or Trust()
        #: Seconds until an allowance's rest is surely back (``app.gate.allowance.hold_seconds``).
        self._hold = hold
        #: Per organization: its deferred requests waiting now, at most ``max_deferred``
        #: (``RELAY_ORG_SHARE_DEFERRED``): a waiting request holds a connection.
        self._waiting: dict[int, int] = {}
        self._max_deferred = max_deferred
        self._keys: dict[bytes, KnownKey] = {}
        #: By key, the digest of each key admitted here (``app.gate.middleware``): emptied with the keys.
        self.digests = KeyDigests()
        self._accounts: dict[tuple[int, int], KnownAccount] = {}
        #: Per organization: the allowance in use, and the one asked for when it ran low.
        self._allowances: dict[int, Allowance] = {}
        self._next: dict[int, Allowance] = {}
        self._refills: dict[int, asyncio.Task[None]] = {}
        self._demand: dict[int, Demand] = {}
        self._given_up: list[Unused] = []
        #: Rests given up so far (a sequence number), per organization the number of its
        #: latest, and the number up to which they are surely on the organization rows:
        #: handed to the ledger writer by ``unused``, written when it calls ``written``.
        self._rests = 0
        self._owed: dict[int, int] = {}
        self._handed = 0
        self._written = 0
        #: Writes what was given up, now (the ledger writer's flush; None: nothing to wait for).
        self._settle: Callable[[], Awaitable[None]] | None = None
        #: Statement-path requests that first waited for their organization's rest to be
        #: written, or for its next allowance to arrive.
        self.rests_settled = 0
        self.refills_awaited = 0
        #: Bumped whenever what is held is forgotten: a statement's answer read before a
        #: change must not be kept after it.
        self._generation = 0
        #: The database's clock minus this process's (seconds), from the last statement.
        self._clock_offset = 0.0
        #: Requests admitted here, and through the statement (their sum: all counted).
        self.admitted_locally = 0
        self.admitted_by_statement = 0

    def settle_through(self, settle: Callable[[], Awaitable[None]]) -> None:
        """``settle`` writes what was given up (``unused``) and returns once it is written."""
        self._settle = settle

    def trust(self, trust: Trusted) -> None:
        self._trust = trust
        self.forget()

    @property
    def forgotten(self) -> int:
        """How many times what is held was dropped (each announced change counts)."""
        return self._generation

    def forget(self) -> None:
        """Drop every key and account (a change was announced, or nobody listens)."""
        self._generation += 1
        self._keys.clear()
        self.digests.clear()
        self._accounts.clear()

    def _db_now(self) -> float:
        """The database's clock (unix seconds), as the last statement's answer set it."""
        return time.time() + self._clock_offset

    # --- here ------------------------------------------------------------------------------

    def admit_here(self, key_hash: bytes, permission: str, account_id: int | None) -> GateResult | None:
        """The request admitted from what this process holds (``account_id``: the route's
        ``{account_id}``, None when it names none), or None: then ``admit`` decides."""
        if not self._trust.live:
            return None
        key = self._keys.get(key_hash)
        if key is None:
            return None
        mono = time.monotonic()
        if mono - key.learned > KNOWN_SECONDS or (key.expires_at is not None and self._db_now() >= key.expires_at):
            return None
        org = key.organization_id
        token, verdict = None, None
        if account_id is not None:
            if not 1 <= account_id <= BIGINT_MAX:
                verdict = 404  # an id that cannot exist: 404, counted like any other
            else:
                account = self._accounts.get((org, account_id))
                if account is None or mono - account.learned > KNOWN_SECONDS:
                    return None
                token, verdict = account.upstream_token, account.verdict
        allowance = self._allowances.get(org)  # the one in use; once it is spent, the next one
        if allowance is None or not allowance.take(mono):
            allowance = self._current(org, mono)
            if allowance is None or not allowance.take(mono):
                return None
        if allowance.running_low():
            self._refill(key_hash, org, allowance, mono)
        permitted = permission in key.permissions
        return self._taken(allowance, key.key_id, permitted, 403 if not permitted else verdict, token, mono)

    def _taken(
        self, allowance: Allowance, key_id: int, permitted: bool, verdict: int | None, token: str | None, mono: float
    ) -> GateResult:
        """The result of a request admitted from ``allowance`` (its admission just taken)."""
        self._demand[allowance.organization_id].count += 1
        self.admitted_locally += 1
        return GateResult(
            key_id, allowance.organization_id, True, permitted, verdict, token, True,
            allowance.limit_minute, allowance.limit_day, allowance.minute_used + allowance.taken,
            allowance.day_used + allowance.taken, allowance.clock(mono),
        )

    def _current(self, org: int, mono: float) -> Allowance | None:
        """The organization's allowance to take from: the current one, or the next one once
        the current one is spent (what is left of an ended one goes back)."""
        allowance = self._allowances.get(org)
        if allowance is not None and not allowance.spent(mono):
            return allowance
        following = self._next.get(org)
        if following is None or following.spent(mono):
            return None
        del self._next[org]
        if allowance is not None:
            following.follow(allowance)
        self._give_up(self._allowances, org)
        self._allowances[org] = following
        return following

    def _refill(self, key_hash: bytes, org: int, allowance: Allowance, mono: float) -> None:
        """Ask for the organization's next allowance in the background (once: not while
        one is asked for or waits its turn)."""
        allowance.refilling = True
        if org in self._refills or org in self._next or minute_ending(self._db_now()):
            return
        wish = self._demand[org].wish(mono)
        if not wish:
            return
        ask = MeterRequest(key_hash, "", None, "", "", wish=wish, counts=False, hold=self._hold)
        self._refills[org] = asyncio.get_running_loop().create_task(self._ask(org, ask))

    async def _ask(self, org: int, ask: MeterRequest) -> None:
        try:
            result = await self._meter(ask)
        except Exception as exc:  # noqa: BLE001 - the current allowance goes on; then the statement
            logger.info("gate_refill_failed", extra={"error": type(exc).__name__})
            return
        finally:
            del self._refills[org]
        if result.authenticated and result.extra:
            self._give_up(self._next, org)  # none should wait; if one does, it goes back
            self._next[org] = self._allowance(result, time.monotonic())

    # --- through the statement -------------------------------------------------------------

    async def admit(self, request: MeterRequest) -> GateResult:
        """The request admitted through the gate statement (what ``admit_here`` could not),
        asking for the organization's next allowance when it has none left."""
        mono = time.monotonic()
        trusted = self._trust.live
        wish = 0
        key = self._keys.get(request.key_hash) if trusted else None
        if key is not None and self._current(key.organization_id, mono) is None:
            org = key.organization_id
            taken = await self._after_refill(request, org)
            if taken is not None:
                return taken
            mono = time.monotonic()
            if self._current(org, mono) is None:
                # At a minute's end the statement counts the requests itself: an allowance
                # of that minute would end at once and all of it go back.
                if not minute_ending(self._db_now()):
                    wish = self._demand[org].wish(mono)
                await self._rest_back(org)
        generation = self._generation
        result = await self._meter(replace(request, wish=wish, hold=self._hold) if wish else request)
        self._learn(request, result, time.monotonic(), keep=trusted and generation == self._generation)
        if result.deferred:
            return await self._after_reservations(request, result)
        return result

    async def _after_refill(self, request: MeterRequest, org: int) -> GateResult | None:
        """The request admitted from the organization's next allowance, when one is being
        reserved now: that reservation counts as used already, so the statement would
        count this request beside it and its headers would jump by it. None: no refill in
        flight, or it brought nothing this request can take (then the statement decides)."""
        refill = self._refills.get(org)
        if refill is None or (request.account_named and request.account_id is None):
            return None  # (an account id that cannot exist: the statement's 404)
        self.refills_awaited += 1
        await asyncio.shield(refill)  # a request that gives up does not stop the refill
        return self.admit_here(request.key_hash, request.permission,
                               request.account_id if request.account_named else None)

    async def _rest_back(self, org: int) -> None:
        """What the organization's ended allowances left is on its row before the statement
        reads it: else the statement counts that rest as used, and the request's headers jump
        by it (and back, once the ledger writer has given it back). Costs a wait only when an
        allowance ended by time with admissions left, the last one or two ledger intervals."""
        self._give_up(self._allowances, org)  # ended (``_current`` found none to take from)
        if self._settle is not None and self._owed.get(org, 0) > self._written:
            self.rests_settled += 1
            await self._settle()

    async def _after_reservations(self, request: MeterRequest, deferred: GateResult) -> GateResult:
        """A request that did not fit while allowances were out: admitted from this
        process's own allowance if it holds one with room, else asked again once the
        reservations have surely ended (what they left is back by then), for a final answer."""
        key_id, org = deferred.key_id, deferred.organization_id
        assert key_id is not None and org is not None  # deferred: the key was found
        taken = self._take_deferred(deferred, key_id, org)
        if taken is not None:
            return taken
        # No more wait than what may come back could serve (``reserved``), nor than the share.
        waiting = self._waiting.get(org, 0)
        if waiting < min(deferred.reserved, self._max_deferred):
            self._waiting[org] = waiting + 1
            try:
                await asyncio.sleep(min(deferred.retry_in, MAX_DEFER_SECONDS))
            finally:
                self._waiting[org] -= 1
                if not self._waiting[org]:
                    del self._waiting[org]
            taken = self._take_deferred(deferred, key_id, org)
            if taken is not None:
                return taken
        result = await self._meter(replace(request, wish=0, final=True))
        self._learn(request, result, time.monotonic(), keep=False)
        return result

    def _take_deferred(self, deferred: GateResult, key_id: int, org: int) -> GateResult | None:
        """The deferred request admitted from this process's allowance, if it holds one with room."""
        mono = time.monotonic()
        allowance = self._current(org, mono)
        if allowance is None or not allowance.take(mono):
            return None
        return self._taken(allowance, key_id, deferred.permitted, deferred.verdict, deferred.upstream_token, mono)

    def _learn(self, request: MeterRequest, result: GateResult, mono: float, *, keep: bool) -> None:
        self._clock_offset = result.at - time.time()
        key_id, org = result.key_id, result.organization_id
        if key_id is None or org is None:  # not authenticated (a key found has its organization)
            return
        demand = self._demand.get(org)
        if demand is None:
            demand = self._demand[org] = Demand(mono)
        if result.counted:
            self.admitted_by_statement += 1
            demand.count += 1
        if keep:
            if len(self._keys) >= MAX_HELD or len(self._accounts) >= MAX_HELD:
                self.forget()  # bounded memory; what is in use comes back with its next request
            self._keys[request.key_hash] = KnownKey(
                key_id, request.key_hash, org, frozenset(result.permissions or ()),
                result.expires_at.timestamp() if result.expires_at is not None else None, mono,
            )
            if request.account_named and request.account_id is not None:
                verdict = 404 if not result.owned else 409 if result.disconnected else None
                self._accounts[org, request.account_id] = KnownAccount(result.upstream_token, mono, verdict)
        if result.extra:
            self._give_up(self._allowances, org)
            self._allowances[org] = self._allowance(result, mono)

    @staticmethod
    def _allowance(result: GateResult, mono: float) -> Allowance:
        org, minute_start, day_start = result.organization_id, result.minute_start, result.day_start
        # An extra is granted to a key found, with the windows it was reserved in.
        assert org is not None and minute_start is not None and day_start is not None
        return Allowance(
            organization_id=org, limit_minute=result.limit_minute,
            limit_day=result.limit_day, minute_used=result.minute_used, day_used=result.day_used,
            extra=result.extra, minute_start=minute_start, day_start=day_start,
            db_now=result.at, mono=mono,
        )

    # --- what goes back ---------------------------------------------------------------------

    def _give_up(self, held: dict[int, Allowance], org: int) -> None:
        """Drop ``org``'s allowance from ``held``; what is left of it goes back."""
        allowance = held.pop(org, None)
        unused = allowance.unused() if allowance is not None else None
        if unused is not None:
            self._given_up.append(unused)
            self._rests += 1
            self._owed[org] = self._rests

    def unused(self, *, everything: bool = False) -> list[Unused]:
        """What goes back to the organization rows now: the ended allowances' rest (every
        allowance's with ``everything``, at shutdown and in tests); they are dropped here."""
        mono = time.monotonic()
        for held in (self._allowances, self._next):
            for org, allowance in list(held.items()):
                # An ended allowance whose successor is being reserved, or waits, stays until
                # that one follows it (``_current``): the successor's counters hold its rest.
                successor = held is self._allowances and (org in self._refills or org in self._next)
                if everything or (allowance.spent(mono) and not successor):
                    self._give_up(held, org)
        given, self._given_up = self._given_up, []
        self._handed = self._rests
        return given

    def written(self) -> None:
        """The ledger writer committed everything ``unused`` last handed it (and anything it
        kept from a failed write before)."""
        self._written = self._handed
        self._owed = {org: rest for org, rest in self._owed.items() if rest > self._written}

    async def close(self) -> None:
        """Wait for the refills in flight (their allowances then go back with the rest)."""
        if self._refills:
            await asyncio.gather(*self._refills.values(), return_exceptions=True)
