"""Case g: seconds from a new upstream transaction to its visibility through the API.

A fresh database, one account whose sandbox history gains a transaction every
``ROW_EVERY`` seconds (the sandbox's clock runs in real time), ``relay worker`` and
``relay serve`` with default settings. Once the worker's initial backfill has made the
account store-served, the next ``rounds`` new upstream transactions are watched: each
appears upstream at its ``createdAt`` and is visible when the API's page under a marker just
after it lists it.
"""

from __future__ import annotations

import time
from datetime import datetime

import httpx

from bench.common import bench_database
from bench.config import BenchConfig
from bench.procs import relay_command
from bench.report import Rounds, Row
from bench.stack import Stack, provision

FRESH_ACCOUNT = 910_004
ROW_EVERY = 10
POLL = 0.5


def _newest_upstream(stack: Stack) -> tuple[str, int]:
    body = stack.sandbox.get(FRESH_ACCOUNT, "/earnings/transactions", limit=1).raise_for_status().json()
    row = (body.get("data") or body)["list"][0]
    return row["id"], int(datetime.fromisoformat(row["createdAt"]).timestamp())


def _store_served(api: httpx.Client, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = api.get(f"/v1/{FRESH_ACCOUNT}/earnings")
        if answer.status_code == 200 and answer.json()["_meta"]["_cache"]["source"] == "store":
            return
        time.sleep(1)
    raise RuntimeError(f"the worker's initial backfill did not make the account store-served in {timeout:.0f} s")


def _visible(api: httpx.Client, row_id: str, created: int) -> bool:
    answer = api.get(f"/v1/{FRESH_ACCOUNT}/earnings", params={"marker": created + 1}).raise_for_status().json()
    return any(row["id"] == row_id for row in answer["data"]["list"])


def watch(stack: Stack, api: httpx.Client, wanted: int, timeout: float) -> list[float]:
    """Delays (s) of the next ``wanted`` new upstream transactions, as they become visible."""
    offset = stack.sandbox.clock()["now"] - time.time()  # sandbox time - local time
    last_id, _ = _newest_upstream(stack)
    pending: dict[str, int] = {}
    delays: list[float] = []
    deadline = time.monotonic() + timeout
    while len(delays) < wanted and time.monotonic() < deadline:
        if len(pending) + len(delays) < wanted:
            row_id, created = _newest_upstream(stack)
            if row_id != last_id:
                pending[row_id], last_id = created, row_id
        for row_id, created in list(pending.items()):
            if _visible(api, row_id, created):
                delays.append(time.time() + offset - created)
                del pending[row_id]
        time.sleep(POLL)
    return delays


def case_g(stack: Stack, server: str, config: BenchConfig) -> list[Row]:
    stack.sandbox.configure_account(FRESH_ACCOUNT, earnings=86400 // ROW_EVERY, history_days=1)
    with bench_database(server) as url:
        fresh = stack.with_database(url)
        key = provision(url, "bench-freshness", FRESH_ACCOUNT)
        try:
            fresh.procs.start("worker", relay_command("worker"), fresh.env())
            base = fresh.serve(1, name="freshness-api")
            with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30) as api:
                _store_served(api, timeout=300)
                delays = watch(stack, api, config.rounds, config.freshness_timeout)
        finally:
            fresh.procs.stop_all()
    measure = f"new upstream transaction -> visible through the API ({config.rounds} transactions, {ROW_EVERY} s apart)"
    if not delays:
        return [Row("g", measure, note=f"none visible within {config.freshness_timeout:.0f} s")]
    note = "" if len(delays) == config.rounds else f"{len(delays)} of {config.rounds} seen in {config.freshness_timeout:.0f} s"
    return [Row("g", measure, Rounds.of(delays), "s", note=note)]
