"""A real HTTP webhook receiver on 127.0.0.1 (a free port): records every request and
answers 204, or 503 while it is "down", after ``delay`` seconds (a slow receiver). It can
answer another status with other headers (a redirect), or a body of ``answer_bytes``
(with or without a Content-Length), counting how much of it it got to write."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = b"x" * 65536


class Receiver:
    def __init__(self, delay: float = 0.0, *, status: int | None = None, headers: dict[str, str] | None = None,
                 answer_bytes: int = 0, declare_length: bool = True) -> None:
        self.requests: list[tuple[dict[str, str], bytes, int]] = []
        self.down = False
        self.delay = delay
        #: While set to an unset Event, every answer waits for it (at most a minute).
        self.hold: threading.Event | None = None
        self.written = 0  # the last answer's body bytes written (before the client went away)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["content-length"]))
                answer = 503 if receiver.down else status or (200 if answer_bytes else 204)
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body, answer))
                time.sleep(receiver.delay)  # the behaviour under test: a slow receiver
                if receiver.hold is not None:
                    receiver.hold.wait(60)
                self.send_response(answer)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if declare_length:
                    self.send_header("content-length", str(answer_bytes))
                self.end_headers()
                self._answer(answer_bytes)

            def _answer(self, size: int) -> None:
                receiver.written = 0
                while receiver.written < size:
                    part = CHUNK[: size - receiver.written]
                    self.wfile.write(part)  # raises once the client has closed the connection
                    receiver.written += len(part)

            def log_message(self, *args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:
                pass  # a client that gave up on a slow answer: nothing to report

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def accepted(self) -> list[tuple[dict[str, str], bytes]]:
        return [(h, b) for h, b, status in self.requests if status < 300]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
