"""Cases that read the serving data set over HTTP: a (store vs minimal app), b (gate cost),
c (live relay), e (deep pages), f (chart).

Every comparison alternates its sides round by round inside one run, so drifting machine
load hits both alike, and ratios are taken pair by pair (round i against round i).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import psycopg

from app.db.rows import one
from bench.config import BenchConfig
from bench.dataset import Serving
from bench.report import Rounds, Row, Target, costs, percent, ratios
from bench.stack import Stack, get_json
from bench.wrk import WrkResult, run_wrk

T = TypeVar("T")

UPSTREAM_LATENCY_MS = 150
#: Longest wait for one set-up request (a deep page on a machine busy with other work).
SLOW = 600


@dataclass(frozen=True)
class Load:
    """One side of a comparison: a URL, its key, and what wrk varies per request: a random
    marker from ``markers`` (lo, hi) appended, a random one of ``accounts`` for ``{account}``."""

    url: str
    key: str | None = None
    markers: tuple[int, int] | None = None
    accounts: tuple[int, ...] = ()


def measure(loads: Mapping[str, Load], config: BenchConfig, connections: int,
            rounds: int | None = None) -> dict[str, list[WrkResult]]:
    """``rounds`` (``config.rounds``) alternating wrk runs of every load (after a short
    warm-up of each). Every other round runs the loads in reverse order, so neither side
    of a pair always goes second (after the other's load: its autovacuum, its flushes)."""
    def run(load: Load, seconds: int) -> WrkResult:
        return run_wrk(load.url, connections=connections, seconds=seconds, threads=config.wrk_threads,
                       key=load.key, markers=load.markers, accounts=load.accounts)

    for load in loads.values():
        run(load, 1)
    results: dict[str, list[WrkResult]] = {name: [] for name in loads}
    for round_ in range(rounds or config.rounds):
        for name, load in in_order(loads, round_):
            results[name].append(run(load, config.seconds))
    return results


def in_order(sides: Mapping[str, T], round_: int) -> list[tuple[str, T]]:
    """The sides (loads) of round ``round_`` (from 0) in the order they run: as given, then reversed."""
    ordered = list(sides.items())
    return ordered[::-1] if round_ % 2 else ordered


def rps(results: list[WrkResult]) -> list[float]:
    return [r.rps for r in results]


def p50(results: list[WrkResult]) -> list[float]:
    return [r.p50_ms for r in results]


def p99(results: list[WrkResult]) -> list[float]:
    return [r.p99_ms for r in results]


def throughput_row(case: str, measure_: str, results: list[WrkResult]) -> Row:
    """req/s over the rounds, with the median p50 and p99 latencies alongside."""
    latency = f"p50 {Rounds.of(p50(results)).median:.1f} ms, p99 {Rounds.of(p99(results)).median:.1f} ms"
    return Row(case, measure_, Rounds.of(rps(results)), "req/s", note=latency)


def expect_source(url: str, key: str, source: str) -> None:
    """Fail early when a page is not answered as the case means to measure it."""
    meta = get_json(url, key)["_meta"]["_cache"]
    if meta["source"] != source:
        raise RuntimeError(f"{url} answered from {meta['source']}, not {source}")


def check_connections(database_url: str, processes: int, minimal_apps: int = 1) -> None:
    """Fail before starting when the server cannot take every app's pools at ``processes``
    processes each (a default server allows 100: two processes with the control)."""
    from app.settings import Settings
    from bench.minimal_app import POOL_MAX

    # Each relay process: its pool, the gate's listener, meter and ledger writer; each
    # process of each minimal app: its pool.
    need = processes * (Settings().db_pool_max + 3 + POOL_MAX * minimal_apps) + 10
    with psycopg.connect(database_url) as conn:
        allowed = int(one(conn.execute("SHOW max_connections").fetchone())[0])
    if need > allowed:
        raise RuntimeError(f"case a at {processes} processes needs about {need} database connections and the "
                           f"server allows {allowed}: raise max_connections, or name a server that allows them "
                           f"in BENCH_DATABASE_URL")


def store_page(api: str, data: Serving) -> Load:
    """The store-served earnings page of the API at ``api``, at random markers."""
    return Load(f"{api}/v1/{data.account}/earnings?marker=", data.key, data.markers)


def case_a(stack: Stack, data: Serving, config: BenchConfig) -> list[Row]:
    """The store-served earnings page vs the separate minimal app, random markers; with
    ``config.control``, a second copy of the minimal app in the same rotation (an A/A run)."""
    minimal_apps = ["minimal", "control"] if config.control else ["minimal"]
    check_connections(stack.database_url, max(config.processes), len(minimal_apps))
    results: dict[tuple[int, int], dict[str, list[WrkResult]]] = {}
    for workers in config.processes:
        data.refresh(stack)
        api = stack.serve(workers)
        store = store_page(api, data)
        expect_source(f"{store.url}{data.markers[1]}", data.key, "store")
        loads = {"store": store}
        for name in minimal_apps:
            base = stack.uvicorn("bench.minimal_app:app", workers, name, BENCH_MINIMAL_DATABASE_URL=stack.database_url)
            loads[name] = Load(f"{base}/earnings/{data.account}?marker=", None, data.markers)
        for connections in config.connections:
            results[workers, connections] = measure(loads, config, connections, config.rounds_at(connections))
        stack.procs.stop_all()
    rows = []
    for (workers, connections), r in results.items():
        label = f"{workers} process{'es' if workers > 1 else ''}, {connections} conn."
        # Issue 31: at least the hand-written endpoint's throughput, and no worse a tail.
        rows += [throughput_row("a", f"store page, {label}", r["store"]),
                 throughput_row("a", f"minimal app, {label}", r["minimal"]),
                 Row("a", f"store / minimal, {label}", ratios(rps(r["store"]), rps(r["minimal"])),
                     target=Target(">=", 1.0)),
                 Row("a", f"store p99 / minimal p99, {label}", ratios(p99(r["store"]), p99(r["minimal"])),
                     target=Target("<=", 1.0))]
        if "control" in r:  # no target: what two copies of one program differ by here
            rows += [Row("a", f"control: minimal copy / minimal, {label}", ratios(rps(r["control"]), rps(r["minimal"]))),
                     Row("a", f"control: minimal copy p99 / minimal p99, {label}",
                         ratios(p99(r["control"]), p99(r["minimal"])))]
    if 1 in config.processes:
        rows += scaling(stack, data, config)
    return rows


def scaling(stack: Stack, data: Serving, config: BenchConfig) -> list[Row]:
    """The scaling curve: the store page at each process count above one against one
    process, both servers up and asked in the same rounds (at 32 connections and more). The
    rounds above of one and two processes are minutes apart, and the machine's load drifts
    by more than a process adds on two cores."""
    rows = []
    for workers in (w for w in config.processes if w != 1):
        check_connections(stack.database_url, 1 + workers, minimal_apps=0)
        data.refresh(stack)
        loads = {}
        for count in (1, workers):
            api = stack.serve(count, "scaling")
            loads[str(count)] = store_page(api, data)
        for connections in (c for c in config.connections if c >= 32):
            r = measure(loads, config, connections)
            rows.append(Row("a", f"store page, {workers} processes / 1 process, {connections} conn.",
                            ratios(rps(r[str(workers)]), rps(r["1"])),
                            target=Target(">=", 1.0) if workers == 2 else None))
        stack.procs.stop_all()
    return rows


def case_b(stack: Stack, data: Serving, config: BenchConfig) -> list[Row]:
    """The same keyset route with and without the gate, in one process (bench/gate_app.py),
    asked the same requests; with ``config.control``, the route without the gate run twice
    in each round."""
    data.refresh(stack)
    base = stack.uvicorn("bench.gate_app:create_bench_app", 1, "gate-app", "--factory")
    # The same request to both routes, the key's header included (the open route ignores
    # it): the server's parsing of the request is alike, the gate's work the one difference.
    open_ = Load(f"{base}/open/{data.account}/bench/earnings?marker=", data.key, data.markers)
    loads = {"open": open_, "gated": Load(f"{base}/v1/{data.account}/bench/earnings?marker=", data.key, data.markers)}
    if config.control:  # the open route once more, the gated one between its runs: a difference of nothing
        loads["control"] = open_
    # At least 6 rounds (3 in each order): the difference is a tenth of either side, and on
    # a shared 2-core machine single 5-second rounds of it swing by as much (docs/benchmarks.md).
    r = measure(loads, config, connections=32, rounds=config.close_rounds)
    rows = [throughput_row("b", "route without the gate, 32 conn.", r["open"]),
            throughput_row("b", "route behind the gate, 32 conn.", r["gated"]),
            Row("b", "gate cost (1 - gated / open)", costs(rps(r["gated"]), rps(r["open"])),
                target=Target("<=", 0.10, percent=True), fmt=percent)]
    if "control" in r:
        rows.append(Row("b", "control: 1 - open (run again) / open", costs(rps(r["control"]), rps(r["open"])),
                        fmt=percent))
    return rows


def case_c(stack: Stack, data: Serving, config: BenchConfig) -> list[Row]:
    """The live relay (``fresh=true``) of the same page, the upstream answering in 150 ms."""
    data.refresh(stack)
    api = stack.serve(1)
    page = f"{api}/v1/{data.account}/earnings"
    stack.sandbox.set_fault_rates(latency_ms=UPSTREAM_LATENCY_MS)
    try:
        expect_source(f"{page}?fresh=true&marker={data.markers[1]}", data.key, "upstream")
        loads = {"store": Load(f"{page}?marker=", data.key, data.markers),
                 "live": Load(f"{page}?fresh=true&marker=", data.key, data.markers)}
        r = measure(loads, config, connections=1)
    finally:
        stack.sandbox.set_fault_rates(latency_ms=0)
    return [Row("c", "store page p50, 1 conn.", Rounds.of(p50(r["store"])), "ms"),
            Row("c", f"live relay p50 (upstream +{UPSTREAM_LATENCY_MS} ms), 1 conn.", Rounds.of(p50(r["live"])), "ms"),
            Row("c", "live p50 / store p50", ratios(p50(r["live"]), p50(r["store"]))),
            Row("c", f"live p50 - store p50 - {UPSTREAM_LATENCY_MS} ms (relay overhead)",
                Rounds.of(lv - st - UPSTREAM_LATENCY_MS for lv, st in zip(p50(r["live"]), p50(r["store"]), strict=True)), "ms")]


def _with_limit(url: str, limit: int) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "limit"] + [("limit", str(limit))]
    return f"{parts.path}?{urlencode(query)}"


def _page(client: httpx.Client, url: str) -> dict:
    return client.get(url).raise_for_status().json()


def earnings_deep(client: httpx.Client, stack: Stack, account: int, skip: int) -> str:
    """The feed's cursor after ``skip`` rows, as a client holds it: ``marker``, the second of
    row ``skip`` (a next_page link carries nothing else; pages never split a second), read
    from the store; checked through the API (the page starts at the first older row)."""
    with psycopg.connect(stack.database_url) as conn:
        (marker,) = one(conn.execute(
            "SELECT extract(epoch FROM created_at)::bigint FROM earnings WHERE account_id = %s "
            "ORDER BY created_at DESC, id DESC OFFSET %s LIMIT 1", (account, skip - 1)).fetchone())
        (first_id,) = one(conn.execute(
            "SELECT id FROM earnings WHERE account_id = %s AND created_at < to_timestamp(%s) "
            "ORDER BY created_at DESC, id DESC LIMIT 1", (account, marker)).fetchone())
    url = f"/v1/{account}/earnings?marker={marker}"
    if _page(client, url)["data"]["list"][0]["id"] != first_id:
        raise RuntimeError(f"{url} does not start at the first row before second {marker}")
    return url


def chargebacks_deep(client: httpx.Client, stack: Stack, account: int, skip: int) -> str:
    """Offset ``skip`` under the snapshot marker of the first page."""
    first = f"/v1/{account}/payouts/chargebacks"
    return f"{first}?offset={skip}&marker={_page(client, first)['data']['marker']}"


def posts_deep(client: httpx.Client, stack: Stack, account: int, skip: int) -> str:
    """The page after ``skip`` posts, reached by following ``_pagination.next_page`` (pages of
    100 while they fit): the publish-time cursor is the API's own."""
    first, url, skipped = f"/v1/{account}/posts", f"/v1/{account}/posts", 0
    while skipped < skip:
        body = _page(client, _with_limit(url, 100 if skip - skipped >= 100 else 10))
        skipped += len(body["data"]["list"])
        next_url = (body.get("_pagination") or {}).get("next_page")
        if next_url is None:
            raise RuntimeError(f"{first}: the walk ended after {skipped} rows, before {skip}")
        url = next_url
    return _with_limit(url, 10)


#: Paging schemes of case e: (name, first page path, how to reach the deep page).
SCHEMES = (("earnings marker", "/v1/{a}/earnings", earnings_deep),
           ("chargebacks offset under a marker", "/v1/{a}/payouts/chargebacks", chargebacks_deep),
           ("posts publish-time cursor", "/v1/{a}/posts", posts_deep))


def case_e(stack: Stack, data: Serving, config: BenchConfig) -> list[Row]:
    """Page N (10,000) against page 1 of every paging scheme, 10 rows a page."""
    data.refresh(stack)
    api = stack.serve(1)
    with httpx.Client(base_url=api, headers={"Authorization": f"Bearer {data.key}"}, timeout=SLOW) as client:
        deep = {name: reach(client, stack, data.account, (config.deep_page - 1) * 10)
                for name, _, reach in SCHEMES}
    rows = []
    for name, path, _ in SCHEMES:
        first = path.format(a=data.account)
        expect_source(api + deep[name], data.key, "store")
        r = measure({"page 1": Load(api + first, data.key), "deep": Load(api + deep[name], data.key)},
                    config, connections=8)
        rows += [throughput_row("e", f"{name}: page 1, 8 conn.", r["page 1"]),
                 throughput_row("e", f"{name}: page {config.deep_page:,}, 8 conn.", r["deep"]),
                 Row("e", f"{name}: depth ratio (page 1 / page {config.deep_page:,} req/s)",
                     ratios(rps(r["page 1"]), rps(r["deep"])), target=Target("<=", 1.5))]
    return rows


def case_f(stack: Stack, data: Serving, config: BenchConfig) -> list[Row]:
    """The two-year earnings chart (the default window), one request at a time."""
    data.refresh(stack)
    api = stack.serve(1)
    chart = f"{api}/v1/{data.account}/earnings/chart"
    expect_source(chart, data.key, "store")
    r = measure({"chart": Load(chart, data.key)}, config, connections=1)
    return [Row("f", "two-year earnings chart p50, 1 conn.", Rounds.of(p50(r["chart"])), "ms",
                target=Target("<", 50))]
