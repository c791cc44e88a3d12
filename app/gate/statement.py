"""The gate statement: one SQL statement that meters a batch of requests.

It runs only for what the process cannot answer from what it holds (``app.gate.keeper``): a
key or an account it has not seen, or an organization whose allowance ran out. For each
request of the batch, in one round trip and one transaction: authenticate the key (revoked
keys and rotated keys past their expiry do not match); lock the organizations' rows (in id
order, so two batches never deadlock) and admit, per organization and in arrival order,
the requests that fit both rate windows, taking one credit each off the balance while it is
positive; read the permission and account verdicts (403; 404; 409 for a disconnected
account) and the account's upstream credential (as stored, encrypted); and reserve the
organization's **allowance**: up to ``wish`` more admissions, each with its credit, that
the process then grants on its own. An allowance is
at most an eighth of what is left in either window and of the balance, so near a limit it
shrinks to nothing and every request is decided here again. Until an allowance's rest is
surely back (``organizations.reserved_until``), a request that does not fit is **deferred**
instead of refused, unless it is ``final`` (it waited once). The row lock makes counting
exact across all API processes. It commits with ``synchronous_commit = off``
(docs/api-decisions.md, "Durability of metering").

Ledger rows are not written here: every counted request's row is written after its
response, with its final status (``app.gate.ledger``).

One row comes back per request, mapped by position onto ``GateResult``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from psycopg import AsyncConnection, AsyncCursor
from psycopg.rows import RowMaker

from app.envelope import Cache, Credits, Meta, RateLimits
from app.gate.allowance import LEDGER_INTERVAL, hold_seconds
from app.params import BIGINT_MAX  # account ids outside 1..BIGINT_MAX name no account

GATE_SQL = """
WITH clock AS (
    SELECT date_trunc('minute', now()) AS minute_start,
           date_trunc('day', now(), 'UTC') AS day_start,
           -- this statement is its own transaction: do not wait for the WAL flush
           set_config('synchronous_commit', 'off', true) AS async_commit
),
request AS (
    -- account_named: the route names an account; account_id is NULL when that id cannot
    -- exist (outside bigint), so it never reaches a cast, and the account check says 404.
    -- wish: the allowance the process asks for (the same for every request of one
    -- organization); counts: false for a row that only asks for the next allowance (the
    -- process's refill, no request of its own); hold: how long the asking process may keep
    -- an allowance, until its rest is back (seconds); final: decide the request even while
    -- reservations are out (it waited for them once). The batch arrives as one JSON array of rows
    -- (one parameter, encoded in C: typed arrays cost the API more Python per request than
    -- the rest of the gate).
    SELECT r.n, decode(r.e->>0, 'hex') AS key_hash, r.e->>1 AS permission,
           (r.e->>2)::bigint AS account_id, (r.e->>3)::boolean AS account_named,
           (r.e->>4)::bigint AS wish, (r.e->>5)::boolean AS counts, (r.e->>6)::float8 AS hold,
           (r.e->>7)::boolean AS final
    FROM jsonb_array_elements(%(batch)s::jsonb) WITH ORDINALITY AS r(e, n)
),
caller AS (
    -- place: the request's rank among its organization's requests in this batch (final ones
    -- first; rows that only ask for an allowance come after them, and are never admitted)
    SELECT r.n, r.counts, r.final, k.id AS key_id, k.key_hash, k.organization_id, k.role, k.expires_at,
           row_number() OVER (PARTITION BY k.organization_id ORDER BY NOT r.counts, NOT r.final, r.n)
               AS place,
           max(r.n) OVER (PARTITION BY k.organization_id) AS last_n
    FROM request r JOIN api_keys k ON k.key_hash = r.key_hash AND k.revoked_at IS NULL
         AND (k.expires_at IS NULL OR k.expires_at > now())  -- a rotated key's overlap
),
wanted AS (
    SELECT c.organization_id, count(*) FILTER (WHERE c.counts) AS n, max(r.wish) AS wish,
           count(*) FILTER (WHERE c.counts AND c.final) AS finals, max(r.hold) AS hold
    FROM caller c JOIN request r ON r.n = c.n
    GROUP BY c.organization_id
),
locked AS (
    -- The newest version of each organization row, locked until the transaction ends (in
    -- id order: two batches lock their organizations in the same order, so never deadlock).
    SELECT o.id, w.n, w.wish, w.finals, w.hold, o.limit_minute, o.limit_day, o.credit_balance,
           o.minute_window, o.day_window, o.reserved_until,
           -- reserved: what the allowances reserved until reserved_until came to, the most
           -- that may still come back (at least one while it is ahead: it moves with a grant)
           CASE WHEN o.reserved_until > now() THEN o.reserved ELSE 0 END AS reserved,
           CASE WHEN o.minute_window >= c.minute_start THEN o.minute_used ELSE 0 END AS minute_used,
           CASE WHEN o.day_window >= c.day_start THEN o.day_used ELSE 0 END AS day_used,
           c.minute_start, c.day_start
    FROM organizations o JOIN wanted w ON w.organization_id = o.id CROSS JOIN clock c
    ORDER BY o.id
    FOR NO KEY UPDATE OF o
),
admitting AS (
    -- admitted: how many of the organization's requests (the first ones) fit both windows;
    -- while reservations are out, only the final ones past the balance (a 402 now) and
    -- none past a window (a 429): the others are deferred, not refused
    SELECT l.*,
           CASE WHEN l.reserved > 0 THEN least(f.fits, greatest(l.finals, l.credit_balance)) ELSE f.fits END
               AS admitted
    FROM locked l
    CROSS JOIN LATERAL (
        SELECT least(l.n, greatest(l.limit_minute - l.minute_used, 0),
                     greatest(l.limit_day - l.day_used, 0)) AS fits
    ) f
),
plan AS (
    -- extra: the allowance, at most an eighth of what the admitted requests leave in each
    -- window and in the balance (integer division: nothing near a limit)
    SELECT a.*,
           greatest(least(a.wish,
                          (a.limit_minute - a.minute_used - a.admitted) / 8,
                          (a.limit_day - a.day_used - a.admitted) / 8,
                          (a.credit_balance - a.admitted) / 8), 0) AS extra
    FROM admitting a
),
charged AS (
    -- A request that started just before a window ended but got the row lock after a newer
    -- request opened the next window is counted in the newer one: windows never go back.
    UPDATE organizations o SET
        minute_window = greatest(p.minute_window, p.minute_start),
        minute_used = p.minute_used + p.admitted + p.extra,
        day_window = greatest(p.day_window, p.day_start),
        day_used = p.day_used + p.admitted + p.extra,
        credit_balance = greatest(p.credit_balance - p.admitted - p.extra, 0),
        reserved_until = CASE WHEN p.extra > 0
                              THEN greatest(p.reserved_until, now() + make_interval(secs => p.hold))
                              ELSE p.reserved_until END,
        reserved = p.reserved + p.extra
    FROM plan p
    WHERE o.id = p.id AND p.admitted + p.extra > 0
    RETURNING o.id
),
judged AS (
    SELECT cr.n, cr.key_id, cr.key_hash, cr.organization_id, cr.place, cr.last_n, cr.expires_at,
           cr.counts AND cr.place <= p.admitted AS counted,
           cr.counts AND cr.place > p.admitted AND p.reserved > 0 AND NOT cr.final AS deferred,
           p.reserved_until, p.reserved,
           cr.place <= p.credit_balance AS funded,
           EXISTS (
               SELECT 1 FROM role_permissions rp
               WHERE rp.role = cr.role AND rp.permission = r.permission
           ) AS permitted,
           ARRAY(SELECT rp.permission FROM role_permissions rp WHERE rp.role = cr.role) AS permissions,
           a.id IS NOT NULL AS owned,
           a.status = 'paused' AS disconnected,
           a.upstream_token,
           r.account_named,
           p.limit_minute, p.limit_day, p.minute_used, p.day_used, p.admitted, p.extra,
           greatest(p.minute_window, p.minute_start) AS minute_start,
           greatest(p.day_window, p.day_start) AS day_start,
           greatest(now(), p.minute_window, p.minute_start) AS counted_at
    FROM caller cr
    JOIN request r ON r.n = cr.n
    JOIN plan p ON p.id = cr.organization_id
    LEFT JOIN accounts a ON a.id = r.account_id AND a.organization_id = cr.organization_id
)
SELECT j.key_id,
       j.organization_id,
       coalesce(j.counted, false) AS counted,
       coalesce(j.permitted, false) AS permitted,
       CASE
           WHEN NOT j.permitted THEN 403
           WHEN j.account_named AND NOT j.owned THEN 404
           WHEN j.account_named AND j.disconnected THEN 409
       END AS verdict,
       j.upstream_token,
       coalesce(j.counted AND j.funded, false) AS debited,
       coalesce(j.limit_minute, 0) AS limit_minute,
       coalesce(j.limit_day, 0) AS limit_day,
       coalesce(j.minute_used + CASE WHEN j.counted THEN j.place ELSE j.admitted END, 0)
           AS minute_used,
       coalesce(j.day_used + CASE WHEN j.counted THEN j.place ELSE j.admitted END, 0) AS day_used,
       extract(epoch FROM coalesce(j.counted_at, now()))::float8 AS at,
       j.key_hash,
       j.expires_at,
       j.permissions,
       j.owned,
       j.disconnected,
       -- the allowance rides on the organization's last row only (one grant per batch),
       -- whose counters are where the allowance starts: an allowance is granted only when
       -- every request of the batch was admitted, so they are the last request's counters
       CASE WHEN j.n = j.last_n THEN j.extra ELSE 0 END AS extra,
       j.minute_start,
       j.day_start,
       coalesce(j.deferred, false) AS deferred,
       CASE WHEN j.deferred THEN extract(epoch FROM j.reserved_until - now())::float8 ELSE 0 END
           AS retry_in,
       CASE WHEN j.deferred THEN j.reserved ELSE 0 END AS reserved
FROM request r
LEFT JOIN judged j ON j.n = r.n
ORDER BY r.n
"""

_encode_json = msgspec.json.Encoder().encode

#: ``_meta._credits`` of a counted request and of one that is not (frozen: shared).
_CREDITS = {True: Credits(used=1), False: Credits(used=0)}

#: An allowance's hold at the ledger writer's default interval (the gatekeeper passes its own).
DEFAULT_HOLD = hold_seconds(LEDGER_INTERVAL)


@dataclass(slots=True)  # not frozen: built on every request (see GateResult)
class MeterRequest:
    """What the gate needs to know about one request.

    ``account_id`` is the route's ``{account_id}`` when it can exist (1..BIGINT_MAX), else
    None; ``account_named`` says whether the route names an account at all. So no value
    from the URL can make the statement fail (and with it the batch it shares). ``wish``:
    the allowance the process asks for, for the key's organization (0: none).
    """

    key_hash: bytes
    permission: str
    account_id: int | None
    method: str
    route: str
    account_named: bool = False
    #: The request's X-Request-ID, stored on its ledger row.
    request_id: str | None = None
    wish: int = 0
    #: False: no request, only the ask for the next allowance (``app.gate.keeper``'s refill).
    counts: bool = True
    #: With ``wish``: seconds until what is left of the allowance is surely back (its
    #: longest use and the ledger writer's interval, with a margin).
    hold: float = DEFAULT_HOLD
    #: Decide the request even while reservations are out: it was deferred once already.
    final: bool = False

    @classmethod
    def of(
        cls, key_hash: bytes, permission: str, account_id: int | None, method: str, route: str,
        request_id: str | None = None,
    ) -> MeterRequest:
        storable = account_id if account_id is not None and 1 <= account_id <= BIGINT_MAX else None
        return cls(key_hash, permission, storable, method, route, account_id is not None, request_id)


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs a setattr call per field
class GateResult:
    """What the gate found out about one request.

    The first fields are what every request gets, whether the process admitted it on its
    own or the statement did; the last ones (from ``key_hash`` on) are what the statement
    also tells the process to keep (``app.gate.keeper``), None when it did not run.
    """

    key_id: int | None
    organization_id: int | None
    counted: bool
    permitted: bool
    verdict: int | None
    upstream_token: str | None  # as stored: encrypted (app.crypto.keyring)
    debited: bool
    limit_minute: int
    limit_day: int
    minute_used: int
    day_used: int
    #: When the request was counted (its ledger row's time): unix seconds on the database's
    #: clock (a float: the gate builds no datetime for a request it admits on its own).
    at: float
    key_hash: bytes | None = None
    expires_at: datetime | None = None
    permissions: list[str] | None = None
    owned: bool | None = None
    #: The account is disconnected (``relay accounts disconnect``: status ``paused``).
    disconnected: bool | None = None
    #: The allowance reserved for this process (on the organization's last row of a batch).
    extra: int = 0
    minute_start: datetime | None = None
    day_start: datetime | None = None
    #: Neither admitted nor refused: it did not fit while allowances reserved for processes
    #: (this one or others) may still give admissions back; ask again, ``final``, after
    #: ``retry_in`` seconds, when they have surely ended.
    deferred: bool = False
    retry_in: float = 0.0
    #: With ``deferred``: the most admissions that may come back (what was reserved meanwhile).
    reserved: int = 0

    @property
    def authenticated(self) -> bool:
        return self.key_id is not None

    @property
    def credits_used(self) -> int:
        return 1 if self.counted else 0

    def rate_limits(self) -> RateLimits:
        return RateLimits(
            limit_minute=self.limit_minute,
            remaining_minute=max(self.limit_minute - self.minute_used, 0),
            limit_day=self.limit_day,
            remaining_day=max(self.limit_day - self.day_used, 0),
        )

    def meta(self, cache: Cache | None = None) -> Meta:
        """``_meta``; ``cache`` is a store-served answer's ``_meta._cache`` (or None)."""
        return Meta(credits=_CREDITS[self.counted], rate_limits=self.rate_limits(), cache=cache)

    def retry_after(self) -> int:
        """Whole seconds until every exhausted window has ended (a 429's ``Retry-After``)."""
        at = datetime.fromtimestamp(self.at, UTC)
        if self.day_used >= self.limit_day:
            end = at.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
        else:
            end = at.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return max(math.ceil((end - at).total_seconds()), 1)


def _gate_params(requests: list[MeterRequest]) -> dict[str, str]:
    rows = [
        (r.key_hash.hex(), r.permission, r.account_id, r.account_named, r.wish, r.counts, r.hold, r.final)
        for r in requests
    ]
    return {"batch": _encode_json(rows).decode()}


#: ``GateResult``'s fields, in the order of the statement's columns.
RESULT_COLUMNS = tuple(GateResult.__dataclass_fields__)


def _gate_rows(cursor: AsyncCursor) -> RowMaker[GateResult]:
    """Rows as ``GateResult`` by position: the statement's columns are the fields in order
    (``RESULT_COLUMNS``; tests/gate/test_meter.py checks the names), so nothing is
    looked up by name on every batch as ``class_row`` does."""
    return _as_result


def _as_result(values: Any) -> GateResult:
    return GateResult(*values)


async def run_gate_statement(conn: AsyncConnection, requests: list[MeterRequest]) -> list[GateResult]:
    """Meter ``requests`` in one statement on ``conn`` (in autocommit: one round trip, one
    transaction, no BEGIN or COMMIT); the results in the requests' order."""
    cursor = await AsyncCursor(conn, row_factory=_gate_rows).execute(GATE_SQL, _gate_params(requests))
    results = await cursor.fetchall()
    if len(results) != len(requests):  # the statement answers one row per request, in order
        raise RuntimeError(f"gate statement answered {len(results)} rows for {len(requests)} requests")
    return results
