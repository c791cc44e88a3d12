"""Limits at the edge of ``relay serve`` (app/edge.py), on real processes and real sockets.

An attacker (no key needed) sends an oversized or unfinished request while organization B
reads its store page and /health: B keeps getting 200 within a second, the attacker is
refused or cut within the documented bound.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from app.settings import Settings
from app.settings_table import documented_settings
from tests.fixtures.api import ApiProcess, auth, start_api_process
from tests.fixtures.net import wait_for
from tests.fixtures.threads import in_background

ACCOUNT_B = 7301
MB = 1_000_000


@pytest.fixture(scope="module")
def short_api(database_url: str, tmp_path_factory) -> Iterator[ApiProcess]:
    """One API process with short timeouts and a small header limit, for the tests that need
    no organization."""
    api = start_api_process(
        database_url, tmp_path_factory.mktemp("relay"),
        RELAY_API_MAX_HEADER_BYTES="1000", RELAY_API_HEAD_TIMEOUT="1", RELAY_API_KEEP_ALIVE_TIMEOUT="1",
    )
    yield api
    api.stop()


@dataclass
class OrgB:
    key: str
    store_page: str  # path of a store-served route


@pytest.fixture
def org_b(db, make_org, make_key, connect_account) -> OrgB:
    """Organization B with an account whose earnings the store covers (served without the
    upstream: the API processes of these tests have none)."""
    org_id = make_org(credits=100_000, limit_minute=100_000, limit_day=1_000_000)
    connect_account(org_id, ACCOUNT_B)
    db.execute(
        """INSERT INTO sync_state (account_id, resource, coverage_start, coverage_end, last_success_at)
           VALUES (%s, 'earnings', to_timestamp(0), now(), now())""",
        (ACCOUNT_B,),
    )
    return OrgB(make_key(org_id), f"/v1/{ACCOUNT_B}/earnings")


@dataclass
class Watch:
    """What B saw: (path, status or error, seconds) per request."""

    answers: list[tuple[str, object, float]] = field(default_factory=list)

    def assert_served(self, minimum: int) -> None:
        assert len(self.answers) >= minimum, f"only {len(self.answers)} requests of B were answered"
        slow_or_failed = [a for a in self.answers if a[1] != 200 or a[2] > 1.0]
        assert not slow_or_failed, slow_or_failed[:5]


@contextmanager
def b_reading(api_url: str, b: OrgB) -> Iterator[Watch]:
    """B reads its store page and /health in turn, on one kept-alive connection, for as long
    as the block runs."""
    watch, stop = Watch(), threading.Event()

    def run() -> None:
        with httpx.Client(base_url=api_url, timeout=10) as client:
            while not stop.is_set():
                for path, headers in ((b.store_page, auth(b.key)), ("/health", {})):
                    started = time.monotonic()
                    try:
                        response = client.get(path, headers=headers)
                        outcome: object = response.status_code
                        if path == b.store_page and response.status_code == 200:
                            assert response.json()["_meta"]["_cache"]["source"] == "store"
                    except (httpx.HTTPError, AssertionError) as exc:
                        outcome = repr(exc)
                    watch.answers.append((path, outcome, time.monotonic() - started))
                stop.wait(0.05)

    with in_background(run, stop, join_timeout=15):
        yield watch


def _connect(api_url: str) -> socket.socket:
    host, port = api_url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def _read_until_closed(sock: socket.socket, timeout: float) -> bytes:
    """Everything the server sends until it closes the connection (a reset counts as closed)."""
    sock.settimeout(timeout)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def _status_and_body(answer: bytes) -> tuple[int, dict, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body), head.lower()


def _closed_within(sockets: list[socket.socket], timeout: float) -> dict[socket.socket, tuple[float, bytes]]:
    """When each socket was closed by the server (seconds from now) and what it was told."""
    started, closed, answers = time.monotonic(), {}, {s: b"" for s in sockets}
    while len(closed) < len(sockets) and time.monotonic() - started < timeout:
        readable, _, _ = select.select([s for s in sockets if s not in closed], [], [], 0.2)
        for sock in readable:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            answers[sock] += chunk
            if not chunk:
                closed[sock] = (time.monotonic() - started, answers[sock])
    return closed


# --- sizes --------------------------------------------------------------------------------------


def test_a_50_mb_header_is_refused_within_5_s_while_b_is_served(api_process, org_b):
    api = api_process()
    with b_reading(api.url, org_b) as watch:
        wait_for(lambda: len(watch.answers) >= 2, 10, "B's first answers", every=0.02)
        attacker = _connect(api.url)
        started = time.monotonic()
        stopped_reading = False
        try:
            attacker.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Huge: " + b"a" * (50 * MB) + b"\r\n\r\n")
        except OSError:  # the server refused and closed while the header was still coming
            stopped_reading = True
        answer = _read_until_closed(attacker, timeout=5)
        refused_after = time.monotonic() - started
        answered = len(watch.answers)
        wait_for(lambda: len(watch.answers) >= answered + 2, 10, "B's answers after the refusal", every=0.02)
    assert refused_after < 5
    assert stopped_reading, "the server read all 50 MB"
    if answer:  # the refusal may be lost to the reset of the unread bytes
        status, body, _ = _status_and_body(answer)
        assert (status, body["code"]) == (431, "headers_too_large")
    watch.assert_served(minimum=4)


def test_a_request_line_past_its_limit_is_answered_414(short_api):
    api = short_api
    path = "/health?" + "q" * Settings().api_max_request_line_bytes
    response = httpx.get(api.url + path)
    assert response.status_code == 414
    assert response.json()["code"] == "request_line_too_long"
    assert response.headers["connection"] == "close"
    # The limit counts the whole line: one byte under it still passes.
    fits = "/health?" + "q" * (Settings().api_max_request_line_bytes - len("GET /health? HTTP/1.1") - 1)
    assert httpx.get(api.url + fits).status_code == 200


def test_one_header_past_its_limit_is_answered_431(short_api):
    api = short_api
    response = httpx.get(f"{api.url}/health", headers={"X-Long": "v" * 1000})
    assert response.status_code == 431
    assert response.json() == {"error": "a header line is limited to 1000 bytes", "code": "header_too_large"}
    assert httpx.get(f"{api.url}/health", headers={"X-Long": "v" * 900}).status_code == 200


def test_headers_past_their_total_are_answered_431_even_when_each_fits(short_api):
    api = short_api
    each = 900
    count = Settings().api_max_head_bytes // each + 1
    response = httpx.get(f"{api.url}/health", headers={f"X-Part-{i}": "v" * each for i in range(count)})
    assert response.status_code == 431
    assert response.json()["code"] == "headers_too_large"


def test_every_worker_process_applies_the_limits(api_process):
    api = api_process(RELAY_API_WORKERS="2", RELAY_API_MAX_HEADER_BYTES="1000")
    # new connections, spread by the kernel over both processes
    statuses = [httpx.get(f"{api.url}/health", headers={"X-Long": "v" * 1000}).status_code for _ in range(12)]
    assert statuses == [431] * 12


# --- slow clients ----------------------------------------------------------------------------


def test_a_hundred_half_sent_requests_are_cut_by_the_default_head_timeout_while_b_is_served(api_process, org_b):
    api = api_process()
    timeout = Settings().api_head_timeout  # the default, as documented
    with b_reading(api.url, org_b) as watch:
        halves = [_connect(api.url) for _ in range(100)]
        for sock in halves:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Half: ")
        closed = _closed_within(halves, timeout=35)
    assert len(closed) == 100, f"{100 - len(closed)} half-sent requests were still open after 35 s"
    assert all(timeout - 0.5 <= seconds < 35 for seconds, _ in closed.values())
    status, body, _ = _status_and_body(next(iter(closed.values()))[1])
    assert (status, body["code"]) == (408, "request_timeout")
    watch.assert_served(minimum=20)


def test_a_post_announcing_more_body_than_it_sends_is_cut(api_process, org_b):
    api = api_process(RELAY_API_BODY_TIMEOUT="1")
    sock = _connect(api.url)
    sock.sendall(
        f"POST /v1/{ACCOUNT_B}/notifications/message/read HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {org_b.key}\r\nContent-Length: 1000\r\n\r\n0123456789".encode()
    )
    closed = _closed_within([sock], timeout=10)
    assert closed, "the connection is still open"
    assert 0.9 <= closed[sock][0] < 5  # the server's clock starts a moment before ours
    assert httpx.get(f"{api.url}/health").status_code == 200


def test_a_connection_that_sends_nothing_is_closed_after_the_head_timeout(short_api):
    api = short_api
    sock = _connect(api.url)
    closed = _closed_within([sock], timeout=10)
    assert closed, "the idle connection is still open"
    seconds, answer = closed[sock]
    assert 0.9 <= seconds < 5  # the server's clock starts at its accept, a moment before ours
    assert answer == b""  # nothing was asked: nothing is answered


def test_an_idle_kept_alive_connection_is_closed_after_the_keep_alive_timeout(short_api):
    api = short_api
    sock = _connect(api.url)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    first = sock.recv(65536)
    assert first.startswith(b"HTTP/1.1 200")
    closed = _closed_within([sock], timeout=10)
    assert closed, "the idle kept-alive connection is still open"
    assert 0.9 <= closed[sock][0] < 5


# --- connections ---------------------------------------------------------------------------------


def _wait_for_upstream_calls(sandbox, calls: int) -> None:
    """Until the sandbox has had ``calls`` requests of B's account (they wait there)."""
    wait_for(lambda: sum(sandbox.requests(ACCOUNT_B)["requests"].values()) >= calls, 10,
             f"{calls} requests waiting on the upstream", every=0.02)


def _first_status_not_503(api: ApiProcess, timeout: float) -> int:
    """The status of /health on a new connection, once it is not the cap's 503."""

    def served() -> int | None:
        status = httpx.get(f"{api.url}/health").status_code
        return None if status == 503 else status

    return wait_for(served, timeout, "a new connection not refused by the cap", every=0.05)


def test_connections_past_the_cap_are_answered_503_with_retry_after(api_process):
    api = api_process(RELAY_API_MAX_CONNECTIONS="3")
    with httpx.Client(base_url=api.url) as first, httpx.Client(base_url=api.url) as second:
        held = [first, second]
        assert all(client.get("/health").status_code == 200 for client in held)
        with httpx.Client(base_url=api.url) as third, httpx.Client(base_url=api.url) as fourth:
            assert third.get("/health").status_code == 200
            over = fourth.get("/health")
            assert over.status_code == 503
            assert over.headers["retry-after"] == "1"
            assert over.json()["code"] == "connection_limit"
            # the connections already served go on
            assert all(client.get("/health").status_code == 200 for client in (*held, third))
    # below the cap again: a new connection is served (once the server has seen the others go)
    assert _first_status_not_503(api, 5) == 200



def test_requests_still_running_for_clients_gone_count_against_the_cap(api_process, sandbox_reset, org_b):
    sandbox = sandbox_reset
    api = api_process(RELAY_UPSTREAM_URL=sandbox.url, RELAY_API_MAX_CONNECTIONS="2")
    sandbox.add_fault("latency", count=2, ms=4000, account_id=ACCOUNT_B)
    for sent in (1, 2):  # two live requests whose clients leave at once; the upstream answers in 4 s
        with _connect(api.url) as gone:
            gone.sendall(f"GET /v1/{ACCOUNT_B}/chats HTTP/1.1\r\nHost: x\r\n"
                         f"Authorization: Bearer {org_b.key}\r\n\r\n".encode())
            _wait_for_upstream_calls(sandbox, sent)
    over = httpx.get(f"{api.url}/health")
    assert (over.status_code, over.json()["code"]) == (503, "connection_limit")
    assert _first_status_not_503(api, 15) == 200  # once they end, a new connection is served again

# --- documentation ---------------------------------------------------------------------------


EDGE_SETTINGS = ("RELAY_API_MAX_REQUEST_LINE_BYTES", "RELAY_API_MAX_HEADER_BYTES", "RELAY_API_MAX_HEAD_BYTES",
                 "RELAY_API_HEAD_TIMEOUT", "RELAY_API_BODY_TIMEOUT", "RELAY_API_KEEP_ALIVE_TIMEOUT",
                 "RELAY_API_MAX_CONNECTIONS")


def test_every_edge_limit_is_documented_with_its_default():
    section = Path(__file__).resolve().parents[1].joinpath("docs/operations.md").read_text()
    section = section.split("## Limits at the edge", 1)[1].split("\n## ", 1)[0]
    defaults = {name: default for name, default, _ in documented_settings()}
    for name in EDGE_SETTINGS:
        assert f"| `{name}` | `{defaults[name]}` |" in section, name
