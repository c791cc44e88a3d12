"""Prometheus metrics of the API and the upstream client, and how a process exposes them.

Metrics use the official ``prometheus_client``. ``relay serve`` runs the API in several
processes, so it uses the client's multiprocess mode: it points ``PROMETHEUS_MULTIPROC_DIR``
at a directory it empties at start (``app.cli.serve``), every API process writes
its samples there, and ``relay serve`` itself serves their sum on
``RELAY_API_METRICS_PORT`` (``serve_metrics``). The worker is one process and serves its
own registry on ``RELAY_WORKER_METRICS_PORT``. Labels never name an account or a key.

The names below are the ones ``docs/operations.md`` lists.
"""

from __future__ import annotations

import os
from pathlib import Path
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server, values
from prometheus_client.multiprocess import MultiProcessCollector

#: This process's id, read again in a forked child: in multiprocess mode the client asks
#: for it on every increment (``os.getpid``: a system call, three a request, dearer under
#: gVisor) to notice a fork; a fork is noticed here instead.
_PID = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))
if values.ValueClass is not values.MutexValue:  # multiprocess mode (PROMETHEUS_MULTIPROC_DIR)
    values.ValueClass = values.MultiProcessValue(process_identifier=lambda: _PID[0])

#: Request latency buckets (seconds): the store answers in milliseconds, live calls in tenths.
LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

HTTP_REQUESTS = Counter(
    "relay_http_requests",
    "HTTP requests answered, by route template, method, status and data source.",
    ["route", "method", "status", "source"],
)
HTTP_LATENCY = Histogram(
    "relay_http_request_duration_seconds",
    "Time from the request to the end of its response, by route template, method and source.",
    ["route", "method", "source"],
    buckets=LATENCY_BUCKETS,
)
GATE_REFUSALS = Counter(
    "relay_gate_refusals",
    "Requests the gate refused, by status (401, 402, 403, 404, 429).",
    ["status"],
)
EDGE_REFUSALS = Counter(
    "relay_http_edge_refusals",
    "Requests and connections the API's edge refused or cut before the app, by reason "
    "(app/edge.py): request_line_too_long, header_too_large, headers_too_large, "
    "request_timeout, body_timeout, body_too_large, idle_timeout, connection_limit.",
    ["reason"],
)
UPSTREAM_CALLS = Counter(
    "relay_upstream_calls",
    "Upstream calls (with their retries), by outcome: ok, failed, circuit_open.",
    ["outcome"],
)
UPSTREAM_RETRIES = Counter("relay_upstream_retries", "Upstream attempts after the first of a call.")
UPSTREAM_BREAKER_OPENINGS = Counter(
    "relay_upstream_breaker_openings", "Times an account's circuit breaker opened."
)


def count_request(route: str, method: str, status: int, source: str, seconds: float) -> None:
    """One answered request in ``relay_http_requests`` and its latency histogram.

    The labelled children are kept per label set: ``labels()`` validates and looks up its
    arguments on every call, a cost the hot path pays twice per request otherwise.
    """
    children = _REQUEST_CHILDREN.get((route, method, status, source))
    if children is None:
        children = _REQUEST_CHILDREN[route, method, status, source] = (
            HTTP_REQUESTS.labels(route, method, str(status), source),
            HTTP_LATENCY.labels(route, method, source),
        )
    children[0].inc()
    children[1].observe(seconds)


#: (route template, method, status, source) -> the two labelled children; bounded by the
#: app's routes x methods x statuses x sources.
_REQUEST_CHILDREN: dict[tuple[str, str, int, str], tuple] = {}


def record_call(*, attempts: int, failed: bool) -> None:
    """One upstream call: its outcome (no attempt at all: the breaker refused it) and retries."""
    outcome = "circuit_open" if attempts == 0 else "failed" if failed else "ok"
    UPSTREAM_CALLS.labels(outcome).inc()
    if attempts > 1:
        UPSTREAM_RETRIES.inc(attempts - 1)


def multiprocess_registry(path: Path) -> CollectorRegistry:
    """A registry that sums the samples every process wrote under ``path``."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(path))
    return registry


def serve_metrics(host: str, port: int, registry: CollectorRegistry | None = None) -> WSGIServer:
    """Serve the Prometheus text exposition on ``host:port`` (any path, e.g. ``/metrics``)
    from a daemon thread; returns the server (``shutdown()`` stops it)."""
    if registry is None:
        from prometheus_client import REGISTRY

        registry = REGISTRY
    server, _thread = start_http_server(port, addr=host, registry=registry)
    return server
