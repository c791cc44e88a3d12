"""A real HTTP webhook receiver on 127.0.0.1 (a free port): records every request and
answers 204, or 503 while it is "down", after ``delay`` seconds (a slow receiver)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    def __init__(self, delay: float = 0.0) -> None:
        self.requests: list[tuple[dict[str, str], bytes, int]] = []
        self.down = False
        self.delay = delay
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["content-length"]))
                status = 503 if receiver.down else 204
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body, status))
                time.sleep(receiver.delay)
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:
                pass  # a client that gave up on a slow answer: nothing to report

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def accepted(self) -> list[tuple[dict[str, str], bytes]]:
        return [(h, b) for h, b, status in self.requests if status < 300]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
