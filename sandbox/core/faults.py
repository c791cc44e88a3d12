"""Fault injection: queued one-off rules (per test) and seeded random rates (from config).

A rule says "the next ``count`` requests [for account A] [whose path starts with P] fail
with ``kind``". Kinds: ``status`` (answer ``status``), ``rate_limit`` (429 with
``Retry-After: retry_after``), ``timeout`` (sleep ``seconds`` then answer normally),
``truncate`` (declare the full Content-Length, send half the body, close) and ``latency``
(sleep ``ms`` then answer normally).

Random rates draw from ``Rng(derive_key(seed, "faults"), request_number)``, so a given
sequence of requests meets the same faults on every run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from sandbox.config import FaultRates
from sandbox.core.rng import Rng, derive_key

KINDS = ("status", "rate_limit", "timeout", "truncate", "latency")


@dataclass(slots=True)
class FaultRule:
    kind: str
    count: int = 1
    account_id: int | None = None
    path_prefix: str | None = None
    status: int = 503
    retry_after: int = 1
    seconds: float = 30.0
    ms: int = 0

    def matches(self, account_id: int | None, path: str) -> bool:
        if self.account_id is not None and self.account_id != account_id:
            return False
        return self.path_prefix is None or path.startswith(self.path_prefix)


@dataclass(frozen=True, slots=True)
class Fault:
    """What the gate must do to one request."""

    kind: str
    status: int = 503
    retry_after: int = 1
    seconds: float = 0.0


class FaultController:
    def __init__(self, seed: int, rates: FaultRates) -> None:
        self._key = derive_key(seed, "faults")
        self._initial = rates
        self.rates = rates
        self.rules: list[FaultRule] = []
        self.requests = 0

    def add(self, rule: FaultRule) -> None:
        if rule.kind not in KINDS:
            raise ValueError(f"kind: must be one of {', '.join(KINDS)}")
        if rule.count < 1:
            raise ValueError("count: must be >= 1")
        self.rules.append(rule)

    def set_rates(self, **values) -> FaultRates:
        self.rates = replace(self.rates, **values)
        return self.rates

    def reset(self) -> None:
        self.rules.clear()
        self.rates = self._initial
        self.requests = 0

    def draw(self, account_id: int | None, path: str) -> list[Fault]:
        """The faults for this request: a matching queued rule first, else the random rates."""
        self.requests += 1
        faults: list[Fault] = []
        if self.rates.latency_ms:
            faults.append(Fault("latency", seconds=self.rates.latency_ms / 1000))
        for rule in self.rules:
            if rule.matches(account_id, path):
                rule.count -= 1
                if rule.count <= 0:
                    self.rules.remove(rule)
                faults.append(_from_rule(rule))
                return faults
        r = Rng(self._key, self.requests)
        x = r.random()
        rates = self.rates
        for kind, rate in (
            ("status", rates.error_rate),
            ("rate_limit", rates.rate_limit_rate),
            ("timeout", rates.timeout_rate),
            ("truncate", rates.truncate_rate),
        ):
            if x < rate:
                faults.append(
                    Fault(kind, status=503, retry_after=rates.retry_after, seconds=rates.timeout_seconds)
                )
                break
            x -= rate
        return faults

    def describe(self) -> dict:
        return {"rates": asdict(self.rates), "rules": [asdict(r) for r in self.rules]}


def _from_rule(rule: FaultRule) -> Fault:
    if rule.kind == "latency":
        return Fault("latency", seconds=rule.ms / 1000)
    return Fault(rule.kind, status=rule.status, retry_after=rule.retry_after, seconds=rule.seconds)
