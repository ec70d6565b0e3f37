"""A loopback HTTP server that answers every POST with 200, a 100 KB Content-Length and then one
byte every `interval` seconds: the shape of reply that defeats httpx's per-chunk read timeout.

It speaks no API at all, so one stub serves the OpenAI and the Anthropic SDK alike (neither gets
far enough to read the body). The handler threads stop when the client hangs up or the server
closes, so a test never leaves a dripping thread behind.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: The announced body length: far more than a drip can send within any test's timeout.
DRIP_LENGTH = 100_000


@dataclass
class Drip:
    port: int
    requests: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@contextmanager
def drip_server(interval: float = 2.0) -> Iterator[Drip]:
    stop = threading.Event()
    drip = Drip(port=0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            drip.requests += 1
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(DRIP_LENGTH))
            self.end_headers()
            try:
                for _ in range(DRIP_LENGTH):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    if stop.wait(interval):
                        return
            except OSError:  # the client gave up: exactly what the test wants
                return

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    drip.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield drip
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
