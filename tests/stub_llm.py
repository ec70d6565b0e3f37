"""A real HTTP server on 127.0.0.1 that plays an OpenAI- or Anthropic-compatible model server
and can be told to misbehave: 5xx, HTML, empty or non-JSON bodies, wrong shapes, huge replies.

The official SDKs are the clients, so these tests cover what the SDKs really do with each body
(a `str` for a non-JSON content type, a JSONDecodeError for a broken JSON one), which mocks of
the transport would not. It records the requests it saw (path, headers, body) for secret checks.
`RateLimitFrom` answers well for a while, then refuses every request with 429 and a long
Retry-After, counting both (an outage that outlasts any retries, at a step the test chooses).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def chat(text: str, model: str = "stub") -> Reply:
    """A well-formed Chat Completions reply carrying `text`."""
    body = {"id": "c1", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    return Reply(200, json.dumps(body).encode())


def messages_reply(text: str) -> Reply:
    """A well-formed Anthropic Messages reply carrying `text`."""
    body = {"id": "m1", "type": "message", "role": "assistant", "model": "stub", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 10, "output_tokens": 5}}
    return Reply(200, json.dumps(body).encode())


#: The broken replies every backend path must survive, by name.
BROKEN: dict[str, Reply] = {
    "http_500": Reply(500, b'{"error": {"message": "boom"}}'),
    "html_200": Reply(200, b"<html><body>Gateway says hi</body></html>", "text/html"),
    "not_json_200": Reply(200, b"this is { not json"),
    "empty_200": Reply(200, b""),
    "wrong_shape_200": Reply(200, b'{"hello": "world"}'),
    "null_choices_200": Reply(200, b'{"choices": null}'),
    "array_200": Reply(200, b"[1, 2, 3]"),
}


@dataclass
class StubServer:
    """`answer(path, body) -> Reply` decides every reply; swap it to change behaviour mid-test."""

    answer: Callable[[str, bytes], Reply]
    seen: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@contextmanager
def stub_server(answer: Callable[[str, bytes], Reply]) -> Iterator[StubServer]:
    stub = StubServer(answer)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            stub.seen.append((self.path, dict(self.headers.items()), body))
            reply = stub.answer(self.path, body)
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.body)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class RateLimitFrom:
    """`text(body) -> str` answers the first `healthy` requests (None: all of them); every later
    one gets 429 with ``Retry-After: retry_after``. `answered` and `refused` count the requests."""

    text: Callable[[bytes], str]
    healthy: int | None = None
    retry_after: float = 3600.0
    answered: int = 0
    refused: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, path: str, body: bytes) -> Reply:
        with self._lock:
            if self.healthy is not None and self.answered >= self.healthy:
                self.refused += 1
                return Reply(429, b'{"error": {"message": "rate limit reached"}}',
                             headers={"retry-after": f"{self.retry_after:g}"})
            self.answered += 1
        return chat(self.text(body))
