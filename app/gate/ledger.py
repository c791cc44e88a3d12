"""The ledger: one row per counted request, written after its response, in batches.

The gate decides a request's credit and window counts before the handler runs (in the
statement, or from an allowance); its ledger row -- organization, key, account, route,
final status, whether the credit came off the balance, when it counted, its request id --
is known once the response has gone. ``LedgerWriter.record`` queues it; a background task
writes the queue every ``interval`` seconds (at once when ``batch`` rows wait) with one
INSERT, in one transaction with what goes back to the organizations (``app.gate.allowance.Unused``:
what ended allowances leave, and the admission and credit of each counted request that is
charged nothing after all, ``give_back``), so the counters and the balance agree with the
ledger rows once a write has landed. Nothing of this is on a request's path, save one
case: a request bound for the gate statement whose organization's allowance ended by time
with admissions left waits for the write that gives that rest back (``app.gate.keeper``).

The writes go over the writer's own connection, autocommitted with ``synchronous_commit``
off for its session (bookkeeping: a commit does not wait for the WAL flush): a write of
rows alone is one prepared INSERT, one round trip, its own transaction; BEGIN and COMMIT come only
with give-backs. It takes no connection from the pool that serves the pages.

A write that fails keeps its rows and returns for the next attempt (at most ``MAX_PENDING``
rows are held; past that the oldest are dropped and logged). A process that dies loses
what it had not written: at most one interval of rows, whose credits stay charged
(docs/api-decisions.md, "Durability of metering").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import msgspec
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from app.db.pool import OwnConnection, pool_kwargs
from app.gate.allowance import LEDGER_INTERVAL, Unused
from app.params import BIGINT_MAX

logger = logging.getLogger(__name__)

#: The rows come as one JSON array of arrays (``json_rows``): one statement, prepared once,
#: one round trip. A COPY took two (the command, then the data), and psycopg's COPY machinery
#: cost the API process about 220 us of CPU per write against 120 for this statement, a
#: stall every request in flight shared 40 times a second (docs/benchmarks.md, "The ledger
#: write and the one-connection tail"). ``created_at`` arrives as whole microseconds.
INSERT_SQL = """
INSERT INTO usage_ledger (organization_id, api_key_id, account_id, method, route, status, debited,
                          created_at, request_id, credits)
SELECT (r->>0)::bigint, (r->>1)::bigint, (r->>2)::bigint, r->>3, r->>4, (r->>5)::smallint, (r->>6)::boolean,
       timestamptz 'epoch' + (r->>7)::bigint * interval '1 microsecond', r->>8, (r->>9)::smallint
FROM jsonb_array_elements(%s::jsonb) AS r
"""

#: One counted request's ledger row as the gate queues it when its response has gone:
#: organization, key, account (the route's ``{account_id}``, None when it names none),
#: method, route template, final status, whether its credit came off the balance, when it
#: was counted (unix seconds, the database's clock), request id, credits used. Kept as a
#: tuple until it is written: encoding a batch at once (``json_rows``) costs less than a
#: line per request on the request's path.
LedgerRow = tuple[int, int, int | None, str, str, int, bool, float, str | None, int]

_encode = msgspec.json.Encoder().encode


def _micros(at: float) -> int:
    """Unix seconds as whole microseconds, truncated (a row counted in the last microsecond
    of a minute stays in that minute)."""
    second = int(at)
    return second * 1_000_000 + int((at - second) * 1_000_000)


def json_rows(rows: list[LedgerRow]) -> bytes:
    """``rows`` as the elements of ``INSERT_SQL``'s JSON array, without its brackets. An
    account id no ``bigint`` holds (the route took it from the path) is stored as NULL."""
    return _encode([
        (org, key_id, account_id if account_id is None or 1 <= account_id <= BIGINT_MAX else None, method, route,
         status, debited, _micros(at), request_id, credits)
        for org, key_id, account_id, method, route, status, debited, at, request_id, credits in rows
    ])[1:-1]


#: Admissions go back to the windows they were counted in, if those are still the current
#: ones (a past window's count is history, in the ledger), and credits to the balance.
GIVE_BACK_SQL = """
UPDATE organizations SET
    minute_used = CASE WHEN minute_window = %(minute_start)s::timestamptz
                       THEN greatest(minute_used - %(admissions)s, 0) ELSE minute_used END,
    day_used = CASE WHEN day_window = %(day_start)s::timestamptz
                    THEN greatest(day_used - %(admissions)s, 0) ELSE day_used END,
    credit_balance = credit_balance + %(credits)s
WHERE id = %(organization_id)s
"""

MAX_PENDING = 200_000
#: Rows encoded at a time, the requests waiting let run between two chunks: a batch of 1,000
#: formatted at once held the event loop about 1.4 ms, a stall every request in flight shared.
CHUNK = 200
#: Longest wait between two writes while they fail.
MAX_PAUSE = 5.0


class LedgerWriter:
    """``record`` queues a row, ``give_back`` what goes back with it; ``flush`` writes the
    queue, what was given back and the allowances' rest (``unused``), then calls
    ``written``: all ``unused`` handed over so far is on the organization rows."""

    def __init__(
        self,
        pool: AsyncConnectionPool,
        unused: Callable[..., list[Unused]] = lambda **_: [],
        written: Callable[[], None] = lambda: None,
        *,
        interval: float = LEDGER_INTERVAL,
        batch: int = 1000,
    ) -> None:
        self._conn = OwnConnection(pool, name=_name(pool), setup=("SET synchronous_commit = off",))
        self._unused = unused
        self._written = written
        self._interval = interval
        self._batch = batch
        self._rows: list[LedgerRow] = []
        self._back: list[Unused] = []  # written in the same transaction as the rows
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._lock = asyncio.Lock()
        #: Writes begun so far: a ``settle`` is served by any write that begins after its call.
        self.begun = 0
        #: Writes failed in a row: the writer waits longer before the next (``pause``).
        self.failures = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="ledger-writer")

    def record(self, row: LedgerRow) -> None:
        """Queue one counted request's row."""
        self._rows.append(row)
        if len(self._rows) == self._batch:
            self._wake.set()

    def give_back(self, back: Unused) -> None:
        """Queue what goes back to an organization: written with the rows queued so far (a
        request's own row is queued before what it gives back), in one transaction."""
        self._back.append(back)

    @property
    def pending(self) -> int:
        return len(self._rows)

    async def flush(self, *, everything: bool = False) -> None:
        """Write what is queued, what was given back and what ended allowances leave
        (``everything``: every allowance's rest, so the counters match the ledger; at
        shutdown and in tests)."""
        async with self._lock:  # one write at a time: rows land in the order they were queued
            await self._flush(everything)

    async def _flush(self, everything: bool) -> None:
        """``flush``'s write, under the lock."""
        self.begun += 1
        rows, self._rows = self._rows, []
        back, self._back = self._back, []
        back = merged([*back, *self._unused(everything=everything)])
        if not rows and not back:
            self._written()
            return
        try:
            await self._write(rows, back)
            self.failures = 0
            self._written()
        except BaseException as exc:  # cancelled too: nothing is lost that did not commit
            self._keep(rows)
            self._back[:0] = back
            if not isinstance(exc, Exception):
                raise
            self.failures += 1
            logger.warning("ledger_write_failed", extra={"pending": len(self._rows), "failures": self.failures},
                           exc_info=self.failures == 1)

    async def settle(self) -> None:
        """Write now, for a request that must not read the counters before what was given
        up is back on them; not while writes fail (it would wait on a database that is down,
        which its own statement will report)."""
        if self.failures:
            return
        # Every request that waits now is served by one write that begins after its call:
        # at a minute's turn hundreds of them wait at once, and a write each, one after
        # another, kept the last waiting for hundreds of milliseconds.
        after = self.begun
        async with self._lock:
            if self.begun == after:
                await self._flush(False)

    async def _write(self, rows: list[LedgerRow], unused: list[Unused]) -> None:
        conn = await self._conn.get()
        try:
            if not unused:
                await _insert(conn, rows)  # autocommit: one statement, one transaction
                return
            async with conn.transaction():
                if rows:
                    await _insert(conn, rows)
                # Organization rows last and in id order: locked briefly, never crosswise.
                async with conn.cursor() as cur:
                    await cur.executemany(GIVE_BACK_SQL, [
                        {"organization_id": u.organization_id, "minute_start": u.minute_start,
                         "day_start": u.day_start, "admissions": u.admissions, "credits": u.credits}
                        for u in unused
                    ])
        except BaseException:
            await self._conn.drop_if_broken()
            raise

    def _keep(self, rows: list[LedgerRow]) -> None:
        self._rows[:0] = rows
        excess = len(self._rows) - MAX_PENDING
        if excess > 0:
            del self._rows[:excess]
            logger.error("ledger_rows_dropped", extra={"rows": excess, "reason": "database unreachable"})

    async def _run(self) -> None:
        while not self._closing:
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=self.pause())
            except TimeoutError:
                pass
            self._wake.clear()
            await self.flush()

    def pause(self) -> float:
        """Seconds until the next write: the interval, doubled for each write that failed in
        a row, up to ``MAX_PAUSE`` (a refused connection fails at once; without this, a
        database that is down would get ten attempts, and the log ten lines, a second)."""
        if not self.failures:
            return self._interval
        return min(self._interval * 2 ** min(self.failures, 16), MAX_PAUSE)

    async def close(self) -> None:
        """Let a write in progress finish (a write cancelled mid-statement would leave
        its connection unusable), then write everything that is left."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self.flush(everything=True)
        await self._conn.close()


def merged(back: list[Unused]) -> list[Unused]:
    """One give-back per organization and pair of windows, in organization order (the order
    the rows are locked in): a burst of failed requests costs one row update, not one each."""
    sums: dict[tuple, list[int]] = {}
    for b in back:
        total = sums.setdefault((b.organization_id, b.minute_start, b.day_start), [0, 0])
        total[0] += b.admissions
        total[1] += b.credits
    return [
        Unused(org, minute, day, admissions, credits)
        for (org, minute, day), (admissions, credits) in sorted(sums.items(), key=lambda item: item[0][0])
    ]


async def _insert(conn: AsyncConnection, rows: list[LedgerRow]) -> None:
    parts = []
    for start in range(0, len(rows), CHUNK):
        if start:
            await asyncio.sleep(0)
        parts.append(json_rows(rows[start:start + CHUNK]))
    await conn.execute(INSERT_SQL, ((b"[%s]" % b",".join(parts)).decode(),), prepare=True)


def _name(pool: AsyncConnectionPool) -> str:
    """The pool's application name with ``-ledger``: the writer's connection named apart."""
    return f"{pool_kwargs(pool).get('application_name') or 'creator-relay'}-ledger"
