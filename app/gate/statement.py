"""The gate statement: one SQL statement that meters a batch of requests.

For each request of the batch, in one round trip and one transaction: authenticate the key
(revoked keys and rotated keys past their expiry do not match); lock the organizations' rows (in id order, so two batches never
deadlock) and admit, per organization and in arrival order, the requests that fit both rate
windows, taking one credit each off the balance while it is positive; read the permission
and account verdicts and the account's upstream credential (as stored, encrypted: the
``account`` dependency decrypts it for routes that call the upstream); insert one ledger row per
admitted request. The row lock makes counting exact across all API processes; counters,
balance and ledger change together or not at all. It commits with
``synchronous_commit = off`` (docs/api-decisions.md, "Durability of metering").

One row comes back per request, mapped by column name onto ``GateResult``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from psycopg import AsyncConnection
from psycopg import AsyncCursor
from psycopg.rows import RowMaker

from app.envelope import Credits, Meta, RateLimits
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
    -- exist (outside bigint), so it never reaches a cast, and the account check says 404
    -- The batch arrives as one JSON array of rows (one parameter, encoded in C: seven
    -- typed arrays cost the API more Python per request than the rest of the gate).
    SELECT r.n, decode(r.e->>0, 'hex') AS key_hash, r.e->>1 AS permission,
           (r.e->>2)::bigint AS account_id, (r.e->>3)::boolean AS account_named,
           r.e->>4 AS method, r.e->>5 AS route, r.e->>6 AS request_id
    FROM jsonb_array_elements(%(batch)s::jsonb) WITH ORDINALITY AS r(e, n)
),
caller AS (
    -- place: the request's rank among its organization's requests in this batch
    SELECT r.n, k.id AS key_id, k.key_hash, k.organization_id, k.role,
           row_number() OVER (PARTITION BY k.organization_id ORDER BY r.n) AS place
    FROM request r JOIN api_keys k ON k.key_hash = r.key_hash AND k.revoked_at IS NULL
         AND (k.expires_at IS NULL OR k.expires_at > now())  -- a rotated key's overlap
),
wanted AS (
    SELECT organization_id, count(*) AS n FROM caller GROUP BY organization_id
),
locked AS (
    -- The newest version of each organization row, locked until the transaction ends (in
    -- id order: two batches lock their organizations in the same order, so never deadlock).
    SELECT o.id, w.n, o.limit_minute, o.limit_day, o.credit_balance, o.minute_window,
           o.day_window,
           CASE WHEN o.minute_window >= c.minute_start THEN o.minute_used ELSE 0 END AS minute_used,
           CASE WHEN o.day_window >= c.day_start THEN o.day_used ELSE 0 END AS day_used,
           c.minute_start, c.day_start
    FROM organizations o JOIN wanted w ON w.organization_id = o.id CROSS JOIN clock c
    ORDER BY o.id
    FOR NO KEY UPDATE OF o
),
plan AS (
    -- admitted: how many of the organization's requests (the first ones) fit both windows
    SELECT l.*,
           least(l.n, greatest(l.limit_minute - l.minute_used, 0),
                 greatest(l.limit_day - l.day_used, 0)) AS admitted
    FROM locked l
),
charged AS (
    -- A request that started just before a window ended but got the row lock after a newer
    -- request opened the next window is counted in the newer one: windows never go back.
    UPDATE organizations o SET
        minute_window = greatest(p.minute_window, p.minute_start),
        minute_used = p.minute_used + p.admitted,
        day_window = greatest(p.day_window, p.day_start),
        day_used = p.day_used + p.admitted,
        credit_balance = greatest(p.credit_balance - p.admitted, 0),
        last_charge_debited = p.credit_balance >= p.admitted
    FROM plan p
    WHERE o.id = p.id AND p.admitted > 0
    RETURNING o.id
),
judged AS (
    SELECT cr.n, cr.key_id, cr.key_hash, cr.organization_id, cr.place,
           cr.place <= p.admitted AS counted,
           cr.place <= p.credit_balance AS funded,
           EXISTS (
               SELECT 1 FROM role_permissions rp
               WHERE rp.role = cr.role AND rp.permission = r.permission
           ) AS permitted,
           a.id IS NOT NULL AS owned,
           a.upstream_token,
           r.account_id, r.account_named, r.method, r.route, r.request_id,
           p.limit_minute, p.limit_day, p.minute_used, p.day_used, p.admitted,
           greatest(now(), p.minute_window, p.minute_start) AS counted_at
    FROM caller cr
    JOIN request r ON r.n = cr.n
    JOIN plan p ON p.id = cr.organization_id
    LEFT JOIN accounts a ON a.id = r.account_id AND a.organization_id = cr.organization_id
),
verdict AS (
    SELECT j.*,
           CASE
               WHEN NOT j.permitted THEN 403
               WHEN j.account_named AND NOT j.owned THEN 404
           END AS status,
           CASE WHEN j.counted
                THEN nextval(pg_get_serial_sequence('usage_ledger', 'id'))
           END AS ledger_id
    FROM judged j
),
ledger AS (
    INSERT INTO usage_ledger
        (id, organization_id, api_key_id, account_id, method, route, status, credits, debited,
         created_at, request_id)
    SELECT v.ledger_id, v.organization_id, v.key_id, v.account_id, v.method, v.route, v.status,
           1, v.funded, v.counted_at, v.request_id
    FROM verdict v
    WHERE v.counted
    ORDER BY v.n
)
SELECT v.key_id,
       v.key_hash,
       coalesce(v.counted, false) AS counted,
       coalesce(v.permitted, false) AS permitted,
       v.status AS verdict,
       v.upstream_token,
       coalesce(v.counted AND v.funded, false) AS debited,
       v.ledger_id,
       coalesce(v.limit_minute, 0) AS limit_minute,
       coalesce(v.limit_day, 0) AS limit_day,
       coalesce(v.minute_used + CASE WHEN v.counted THEN v.place ELSE v.admitted END, 0)
           AS minute_used,
       coalesce(v.day_used + CASE WHEN v.counted THEN v.place ELSE v.admitted END, 0) AS day_used,
       now() AS at
FROM request r
LEFT JOIN verdict v ON v.n = r.n
ORDER BY r.n
"""

_encode_json = msgspec.json.Encoder().encode


@dataclass(frozen=True, slots=True)
class MeterRequest:
    """What the gate statement needs to know about one request.

    ``account_id`` is the route's ``{account_id}`` when it can exist (1..BIGINT_MAX), else
    None; ``account_named`` says whether the route names an account at all. So no value
    from the URL can make the statement fail (and with it the batch it shares).
    """

    key_hash: bytes
    permission: str
    account_id: int | None
    method: str
    route: str
    account_named: bool = False
    #: The request's X-Request-ID, stored on its ledger row.
    request_id: str | None = None

    @classmethod
    def of(
        cls, key_hash: bytes, permission: str, account_id: int | None, method: str, route: str,
        request_id: str | None = None,
    ) -> MeterRequest:
        storable = account_id if account_id is not None and 1 <= account_id <= BIGINT_MAX else None
        return cls(key_hash, permission, storable, method, route, account_id is not None, request_id)


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs a setattr call per field
class GateResult:
    """What the gate statement found out about one request (its columns, by name)."""

    key_id: int | None
    key_hash: bytes | None
    counted: bool
    permitted: bool
    verdict: int | None
    upstream_token: str | None  # as stored: encrypted (app.crypto.keyring)
    debited: bool
    ledger_id: int | None
    limit_minute: int
    limit_day: int
    minute_used: int
    day_used: int
    at: datetime

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

    def meta(self, cache: dict[str, Any] | None = None) -> Meta:
        """``_meta``; ``cache`` is a store-served answer's ``_meta._cache`` (or None)."""
        return Meta(credits=Credits(used=self.credits_used), rate_limits=self.rate_limits(), cache=cache)

    def retry_after(self) -> int:
        """Whole seconds until every exhausted window has ended (a 429's ``Retry-After``)."""
        if self.day_used >= self.limit_day:
            day_start = self.at.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            end = day_start + timedelta(days=1)
        else:
            end = self.at.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return max(math.ceil((end - self.at).total_seconds()), 1)


def _gate_params(requests: list[MeterRequest]) -> dict[str, str]:
    rows = [
        (r.key_hash.hex(), r.permission, r.account_id, r.account_named, r.method, r.route, r.request_id)
        for r in requests
    ]
    return {"batch": _encode_json(rows).decode()}


#: ``GateResult``'s fields, in the order of the statement's columns.
RESULT_COLUMNS = tuple(GateResult.__dataclass_fields__)


def _gate_rows(cursor: AsyncCursor) -> RowMaker[GateResult]:
    """Rows as ``GateResult`` by position: the statement's columns are the fields in order
    (``RESULT_COLUMNS``; tests/gate/test_batching.py checks the names), so nothing is
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
