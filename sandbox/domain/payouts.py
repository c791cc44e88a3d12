"""Chargebacks and payout requests: single timelines, offset-paged under a snapshot marker."""

from __future__ import annotations

from sandbox.core.checksum import money
from sandbox.core.rng import Rng, derive_key
from sandbox.core.timefmt import DAY, iso
from sandbox.core.timeline import Timeline
from sandbox.domain.earnings import LANES

CHARGEBACK_ID_BASE = 500_000_000
PAYMENT_TYPES = {"subscribes": "subscribe", "tips": "tip", "post": "post", "chat_messages": "message", "stream": "stream"}
REJECT_REASONS = ("Bank account details do not match", "Payout method unavailable", "Verification required")
PENDING_PAYOUT_DAYS = 3


class Chargebacks:
    """Chargeback j is filed at t_j and reverses an earlier earnings row (up to 30 days
    earlier), whose payment it embeds with status ``undo``."""

    def __init__(self, seed: int, account_id: int, start: int, span: int, rows: int, ledger) -> None:
        self.ledger = ledger
        self.max_delay = min(30 * DAY, span // 4)
        # Filing starts max_delay after the history starts, so an earlier payment exists.
        self.timeline = Timeline(start + self.max_delay, max(1, span - self.max_delay), rows, CHARGEBACK_ID_BASE)
        self._key = derive_key(seed, account_id, "chargebacks")
        self._lanes = tuple(k for k, tl in enumerate(ledger.timelines) if tl.n > 0)

    def payment_of(self, j: int) -> tuple[int, int]:
        """(lane, index) of the earnings row chargeback j reverses."""
        r = Rng(self._key, j)
        lane = r.choice(self._lanes)
        delay = r.randint(0, self.max_delay)
        tl = self.ledger.timelines[lane]
        return lane, max(0, tl.first_at_or_after(self.timeline.time_of(j) - delay + 1) - 1)

    def row(self, j: int, now: int) -> dict:
        lane, i = self.payment_of(j)
        payment = self.ledger.row(lane, i, now)
        payment = {k: v for k, v in payment.items() if k != "payoutPendingDays"} | {"status": "undo"}
        return {
            "id": self.timeline.id_of(j),
            "createdAt": iso(self.timeline.time_of(j)),
            "paymentType": PAYMENT_TYPES[LANES[lane][0]],
            "payment": payment,
        }

    def truth_key(self, j: int) -> str:
        """``id|createdAt|payment.id``."""
        lane, i = self.payment_of(j)
        tl = self.timeline
        return f"{tl.id_of(j)}|{iso(tl.time_of(j))}|{self.ledger.timelines[lane].id_of(i)}"


class PayoutRequests:
    """A withdrawal about weekly: ``pending`` for its first days, then ``approved`` (or,
    rarely, ``rejected`` with a reason)."""

    def __init__(self, seed: int, account_id: int, start: int, span: int, rows: int) -> None:
        self.timeline = Timeline(start, span, rows)
        self._key = derive_key(seed, account_id, "payout_requests")

    def _draw(self, j: int, now: int) -> tuple[str, int, str, str | None]:
        r = Rng(self._key, j)
        cents = r.randint(50, 5000) * 100 + r.below(100)
        t = self.timeline.time_of(j)
        rejected = r.chance(0.05)
        if now < t + PENDING_PAYOUT_DAYS * DAY:
            state, reason = "pending", None
        elif rejected:
            state, reason = "rejected", r.choice(REJECT_REASONS)
        else:
            state, reason = "approved", None
        return f"INV-{j + 1:07d}", cents, state, reason

    def row(self, j: int, now: int) -> dict:
        invoice, cents, state, reason = self._draw(j, now)
        return {
            "invoiceId": invoice,
            "createdAt": iso(self.timeline.time_of(j)),
            "amount": cents / 100,
            "currency": "USD",
            "state": state,
            "rejectReason": reason,
        }

    def truth_key(self, j: int, now: int) -> str:
        """``invoiceId|state|amount``."""
        invoice, cents, state, _ = self._draw(j, now)
        return f"{invoice}|{state}|{money(cents)}"
