"""Plain HTTP on the websocket port: the page's three files, ``/health``, and the ``/ws`` gate.

websockets calls `StaticSite.process_request` before each handshake. Returning a response answers
a plain GET; returning None lets the websocket handshake on ``/ws`` go on. A browser's websocket
from another site (its Origin differs from the Host) is refused, so a page elsewhere cannot play
in this server's rooms from a visitor's browser.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http import HTTPStatus
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

WS_PATH = "/ws"
_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/board.js": ("board.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
_SECURITY = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def load_static() -> dict[str, bytes]:
    """The page's files from the installed package (works offline: nothing from a CDN)."""
    folder = resources.files("mindagent.server") / "static"
    return {name: (folder / name).read_bytes() for name, _ in set(_FILES.values())}


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers({"Content-Type": content_type, "Content-Length": str(len(body)), "Connection": "close",
                       **_SECURITY})
    return Response(status.value, status.phrase, headers, body)


def same_origin(origin: str | None, host: str | None) -> bool:
    """No Origin (not a browser) or an Origin whose host:port is the Host the request was sent to."""
    if origin is None:
        return True
    if not host:
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


class StaticSite:
    """`process_request` for `websockets.asyncio.server.serve`. `health` returns the /health body."""

    def __init__(self, health: Callable[[], dict[str, Any]], files: dict[str, bytes] | None = None) -> None:
        self.files = files if files is not None else load_static()
        self.health = health

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        if path == WS_PATH:
            if not same_origin(request.headers.get("Origin"), request.headers.get("Host")):
                return _response(HTTPStatus.FORBIDDEN, b"cross-origin websocket refused\n", "text/plain; charset=utf-8")
            return None
        if path == "/favicon.ico":
            return _response(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        if path == "/health":
            return _response(HTTPStatus.OK, json.dumps(self.health()).encode(), "application/json")
        entry = _FILES.get(path)
        if entry is None:
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        name, content_type = entry
        return _response(HTTPStatus.OK, self.files[name], content_type)
