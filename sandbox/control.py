"""The control API under ``/_sandbox/`` (no auth): clock, faults, rate limit, account
sizing, rejected credentials, ground truth, generation counters and reset.

Bodies and answers are JSON; see docs/upstream.md ("Control API") for the full table.
"""

from __future__ import annotations

from dataclasses import fields

from litestar import Request, get, post, put
from litestar.exceptions import NotFoundException

from sandbox.config import FaultRates
from sandbox.core.checksum import checksum
from sandbox.core.errors import SandboxError, bad_request
from sandbox.core.faults import FaultRule
from sandbox.core.params import time_param
from sandbox.core.timefmt import parse_time
from sandbox.state import SandboxState

_RATE_FIELDS = {f.name for f in fields(FaultRates)}
_RULE_FIELDS = {f.name for f in fields(FaultRule)}


def _time_value(name: str, value) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return float(parse_time(value))
    raise bad_request(name, "must be unix seconds or an ISO 8601 string")


@get("/_sandbox/health", sync_to_thread=False)
def health(sandbox: SandboxState) -> dict:
    return {"ok": True}


@get("/_sandbox/clock", sync_to_thread=False)
def read_clock(sandbox: SandboxState) -> dict:
    return sandbox.clock.describe()


@post("/_sandbox/clock", sync_to_thread=False, status_code=200)
def set_clock(sandbox: SandboxState, data: dict) -> dict:
    """Body: ``{"now": unix seconds or ISO, "frozen": bool}`` (both optional)."""
    when = _time_value("now", data["now"]) if data.get("now") is not None else None
    frozen = data.get("frozen")
    sandbox.clock.set(when, None if frozen is None else bool(frozen))
    return sandbox.clock.describe()


@post("/_sandbox/clock/advance", sync_to_thread=False, status_code=200)
def advance_clock(sandbox: SandboxState, data: dict) -> dict:
    """Body: ``{"seconds": float}``."""
    seconds = data.get("seconds")
    if not isinstance(seconds, int | float):
        raise bad_request("seconds", "must be a number")
    sandbox.clock.advance(seconds)
    return sandbox.clock.describe()


@get("/_sandbox/faults", sync_to_thread=False)
def read_faults(sandbox: SandboxState) -> dict:
    return {**sandbox.faults.describe(), "rate_limit": sandbox.limiter.describe()}


@post("/_sandbox/faults", sync_to_thread=False, status_code=200)
def add_fault(sandbox: SandboxState, data: dict) -> dict:
    """Queue a rule: ``{"kind", "count", "account_id", "path_prefix", "status",
    "retry_after", "seconds", "ms"}`` (only ``kind`` required)."""
    unknown = set(data) - _RULE_FIELDS
    if unknown:
        raise bad_request(sorted(unknown)[0], "unknown fault rule field")
    try:
        sandbox.faults.add(FaultRule(**data))
    except (TypeError, ValueError) as exc:
        raise SandboxError(400, str(exc)) from None
    return sandbox.faults.describe()


@put("/_sandbox/faults/rates", sync_to_thread=False)
def set_fault_rates(sandbox: SandboxState, data: dict) -> dict:
    """Body: any of latency_ms, error_rate, rate_limit_rate, timeout_rate, truncate_rate,
    retry_after, timeout_seconds."""
    unknown = set(data) - _RATE_FIELDS
    if unknown:
        raise bad_request(sorted(unknown)[0], "unknown fault rate")
    sandbox.faults.set_rates(**data)
    return sandbox.faults.describe()


@put("/_sandbox/rate-limit", sync_to_thread=False)
def set_rate_limit(sandbox: SandboxState, data: dict) -> dict:
    """Body: ``{"rps": float (0 = off), "burst": int (0 = rps)}``."""
    sandbox.limiter.configure(float(data.get("rps", 0)), int(data.get("burst", 0)))
    return sandbox.limiter.describe()


@get("/_sandbox/accounts/{account_id:int}", sync_to_thread=False)
def read_account(sandbox: SandboxState, account_id: int) -> dict:
    return _account_view(sandbox, account_id)


@put("/_sandbox/accounts/{account_id:int}", sync_to_thread=False)
def configure_account(sandbox: SandboxState, account_id: int, data: dict) -> dict:
    """Body: any of earnings, history_days, posts, chargebacks, payout_requests,
    tracking_links, plus plug-in sizes (kept in ``extra``)."""
    rejected = data.pop("rejected", None)
    if data:
        sandbox.accounts.configure(account_id, data)
    if rejected is not None:
        sandbox.accounts.set_rejected(account_id, bool(rejected))
    return _account_view(sandbox, account_id)


@put("/_sandbox/accounts/{account_id:int}/credentials", sync_to_thread=False)
def set_credentials(sandbox: SandboxState, account_id: int, data: dict) -> dict:
    """Body: ``{"rejected": bool}``: a rejected account gets 401 on every request."""
    sandbox.accounts.set_rejected(account_id, bool(data.get("rejected", True)))
    return _account_view(sandbox, account_id)


def _account_view(sandbox, account_id: int) -> dict:
    return {
        "account_id": account_id,
        "token": sandbox.accounts.token_for(account_id),
        "rejected": account_id in sandbox.accounts.rejected,
        "profile": sandbox.profile(account_id).to_dict(),
        "history_start": sandbox.history_start(account_id),
        "epoch": sandbox.config.epoch,
        **sandbox.world(account_id).describe(),
    }


@get("/_sandbox/truth/{account_id:int}/{resource:str}", sync_to_thread=False)
def truth(sandbox: SandboxState, account_id: int, resource: str, request: Request) -> dict:
    """``{"count", "checksum"}`` over the visible rows of ``resource`` with start <= t <= end.

    Query: ``start``, ``end`` (default: unbounded, clamped to the clock), plus resource
    filters (earnings: ``type``, ``tipsSource``; tracking_link_daily: ``link_id``).
    """
    function = sandbox.truth_functions.get(resource)
    if function is None:
        raise NotFoundException(f"truth resource {resource!r}; known: {sorted(sandbox.truth_functions)}")
    params = dict(request.query_params)
    now = sandbox.now_s()
    lo = time_param("start", params.pop("start", None), 0)
    hi = min(now, time_param("end", params.pop("end", None), now, end=True))
    return {"resource": resource, "start": lo, "end": hi, **checksum(function(sandbox, account_id, lo, hi, params))}


@get("/_sandbox/stats", sync_to_thread=False)
def read_stats(sandbox: SandboxState) -> dict:
    """Generation counters (e.g. ``earnings.rows``, ``earnings.keys``) and request counts."""
    return dict(sandbox.stats)


@post("/_sandbox/stats/reset", sync_to_thread=False, status_code=200)
def reset_stats(sandbox: SandboxState) -> dict:
    """Clears the generation counters and the request counters."""
    sandbox.stats.clear()
    sandbox.requests.clear()
    return {}


@get("/_sandbox/requests", sync_to_thread=False)
def read_requests(sandbox: SandboxState) -> dict:
    """Upstream requests of all accounts by resource, and those answered 429."""
    return sandbox.requests.totals()


@get("/_sandbox/requests/{account_id:int}", sync_to_thread=False)
def read_account_requests(sandbox: SandboxState, account_id: int) -> dict:
    """One account's upstream requests by resource, and those answered 429."""
    return {"account_id": account_id, **sandbox.requests.of_account(account_id)}


@post("/_sandbox/reset", sync_to_thread=False, status_code=200)
def reset(sandbox: SandboxState, request: Request, data: dict | None = None) -> dict:
    """Body (optional): ``{"clock": bool, "accounts": bool, "faults": bool}``, all true by
    default: back to the configuration the sandbox started with."""
    parts = data or {}
    sandbox.reset(
        clock=bool(parts.get("clock", True)),
        accounts=bool(parts.get("accounts", True)),
        faults=bool(parts.get("faults", True)),
    )
    return {"clock": sandbox.clock.describe()}


ROUTES = [
    health, read_clock, set_clock, advance_clock, read_faults, add_fault, set_fault_rates,
    set_rate_limit, read_account, configure_account, set_credentials, truth, read_stats,
    reset_stats, read_requests, read_account_requests, reset,
]

# Truth functions of the core resources are contributed by their resource modules.
TRUTH: dict = {}
