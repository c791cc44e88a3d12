"""``EdgeProtocol`` (app/edge.py) on its own: uvicorn in a thread with a small ASGI app that
echoes the size of the body it read, over real sockets. The cases the API tests do not
reach: heads split over reads, pipelined requests, chunked bodies and their trailers."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from app.edge import uvicorn_options
from app.settings import Settings
from tests.fixtures.net import free_port, wait_for

LIMITS = Settings(api_max_header_bytes=1000, api_max_head_bytes=4000, api_max_request_line_bytes=1000,
                  api_head_timeout=2, api_body_timeout=2, max_body_bytes=1024)


async def echo_length(scope, receive, send) -> None:
    """Answers 200 with the number of body bytes read."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        size, more = size + len(message.get("body", b"")), message.get("more_body", False)
    body = b"%d" % size
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    port = free_port()
    config = uvicorn.Config(echo_length, port=port, loop="uvloop", log_config=None, access_log=False,
                            lifespan="on", **uvicorn_options(LIMITS))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    wait_for(lambda: server.started, 10, "uvicorn to start", every=0.02)
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def _talk(port: int, *parts: bytes, pause: float = 0.1, timeout: float = 5) -> bytes:
    """Send ``parts`` as separate reads (a pause between them), then read until closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        for part in parts:
            try:
                sock.sendall(part)
            except OSError:  # refused and closed before the client was done
                break
            time.sleep(pause)  # the behaviour under test: a client that sends slowly
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except (ConnectionResetError, TimeoutError):
            pass
        return received


def _statuses(answer: bytes) -> list[int]:
    return [int(status) for status in re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)]


def test_a_header_line_split_over_reads_is_measured_whole(port):
    head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"v" * 600
    assert _statuses(_talk(port, head, b"v" * 600 + b"\r\nConnection: close\r\n\r\n")) == [431]
    assert _statuses(_talk(port, head, b"v" * 300 + b"\r\nConnection: close\r\n\r\n")) == [200]


def test_a_head_growing_read_by_read_is_refused_once_past_its_limit(port):
    parts = [b"GET / HTTP/1.1\r\nHost: x\r\n"] + [b"X-%d: %s\r\n" % (i, b"v" * 500) for i in range(12)]
    answer = _talk(port, *parts, pause=0.05)
    assert _statuses(answer) == [431]
    assert b'"code": "headers_too_large"' in answer


def test_a_request_target_arriving_slowly_is_refused_414_before_it_ends(port):
    answer = _talk(port, b"GET /", *[b"p" * 400] * 4, pause=0.05)
    assert _statuses(answer) == [414]


def test_pipelined_requests_in_one_read_are_not_counted_as_one_head(port):
    request = b"GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"v" * 800 + b"\r\n\r\n"
    last = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    # eight heads of ~850 bytes in one read (6.8 KB), the last split over the next read
    answer = _talk(port, request * 8 + last[:20], last[20:])
    assert _statuses(answer) == [200] * 9


def test_a_chunked_body_is_read_and_its_huge_trailer_cut(port):
    chunked = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    assert _talk(port, chunked + b"3\r\nabc\r\n0\r\n\r\n").endswith(b"\r\n\r\n3")
    started = time.monotonic()
    answer = _talk(port, chunked + b"3\r\nabc\r\n", b"0\r\nX-Trailer: ", *[b"t" * 20_000] * 5, pause=0.02)
    assert answer == b""  # cut: more bytes than any body the app accepts, long before the timeout
    assert time.monotonic() - started < 1.5


def test_a_half_sent_head_on_a_kept_alive_connection_gets_408_after_the_head_timeout(port):
    started = time.monotonic()
    answer = _talk(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"GET / HTTP/1.1\r\nHo", timeout=10)
    assert _statuses(answer) == [200, 408]
    assert 2.0 <= time.monotonic() - started < 5
