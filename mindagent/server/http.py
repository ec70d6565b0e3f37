"""Plain HTTP on the websocket port: the page's files, games' page assets (``/assets/``), ``/health``,
and the ``/ws`` gate (``/metrics`` is answered by the server itself, after `StaticSite.gate`, since
it asks the workers).

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

from mindagent.server.assets import PREFIX as ASSETS_PREFIX
from mindagent.server.assets import AssetShelf

WS_PATH = "/ws"
_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/board.js": ("board.js", "text/javascript; charset=utf-8"),
          "/controls.js": ("controls.js", "text/javascript; charset=utf-8"),
          "/grid.js": ("grid.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
_SECURITY = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; frame-src http: https:; base-uri 'none'; form-action 'none'; "
                                "frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def load_static() -> dict[str, bytes]:
    """The page's files from the installed package (works offline: nothing from a CDN)."""
    folder = resources.files("mindagent.server") / "static"
    return {name: (folder / name).read_bytes() for name, _ in set(_FILES.values())}


METRICS_PATH = "/metrics"


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


#: Names a loopback-bound server answers to; any other Host is a DNS-rebinding page's request.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def served_names(bound: str, extra: tuple[str, ...] = ()) -> frozenset[str] | None:
    """The Host names to accept for a server bound to `bound` (None: any, for 0.0.0.0/:: with no
    names given, since the operator chose to answer every address)."""
    names = {n.lower() for n in extra}
    if bound in ("0.0.0.0", "::", ""):
        return frozenset(names) if names else None
    if bound.lower() in LOOPBACK_NAMES:
        return frozenset(names | LOOPBACK_NAMES)
    return frozenset(names | {bound.lower(), f"[{bound.lower()}]"})


def host_name(host: str) -> str:
    """``example.org:8765`` -> ``example.org``; ``[::1]:80`` -> ``[::1]``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _one(headers: Headers, name: str) -> tuple[str | None, bool]:
    """The header's value, and False when it was sent more than once (refused, never a 500)."""
    values = headers.get_all(name)
    return (values[0] if values else None), len(values) <= 1


class StaticSite:
    """`process_request` for `websockets.asyncio.server.serve`. `health` returns the /health body.

    `allowed_hosts` (see `served_names`) is checked on every request, so a page on another name
    that resolves to this address (DNS rebinding) reaches neither the page nor the websocket."""

    def __init__(self, health: Callable[[], dict[str, Any]], files: dict[str, bytes] | None = None,
                 allowed_hosts: frozenset[str] | None = None, assets: AssetShelf | None = None) -> None:
        self.files = files if files is not None else load_static()
        self.assets = assets if assets is not None else AssetShelf()
        self.health = health
        self.allowed_hosts = allowed_hosts

    def gate(self, request: Request) -> Response | None:
        """The refusal for a request with a duplicated Host/Origin or a host name not served, else None."""
        host, single_host = _one(request.headers, "Host")
        _, single_origin = _one(request.headers, "Origin")
        if not (single_host and single_origin):
            return _response(HTTPStatus.BAD_REQUEST, b"duplicate Host or Origin header\n", "text/plain; charset=utf-8")
        if self.allowed_hosts is not None and (host is None or host_name(host) not in self.allowed_hosts):
            return _response(HTTPStatus.MISDIRECTED_REQUEST, b"unknown host name\n", "text/plain; charset=utf-8")
        return None

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        refused = self.gate(request)
        if refused is not None:
            return refused
        host, _ = _one(request.headers, "Host")
        origin, _ = _one(request.headers, "Origin")
        if path == WS_PATH:
            if not same_origin(origin, host):
                return _response(HTTPStatus.FORBIDDEN, b"cross-origin websocket refused\n", "text/plain; charset=utf-8")
            return None
        if path == "/favicon.ico":
            return _response(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        if path == "/health":
            health = self.health()
            # a load balancer reads the status: 503 while not every part serves, the body says which
            status = HTTPStatus.OK if health.get("ok") else HTTPStatus.SERVICE_UNAVAILABLE
            return _response(status, json.dumps(health).encode(), "application/json")
        if path.startswith(ASSETS_PREFIX):
            found = self.assets.get(path)
            if found is None:
                return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
            return _response(HTTPStatus.OK, *found)
        entry = _FILES.get(path)
        if entry is None:
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        name, content_type = entry
        return _response(HTTPStatus.OK, self.files[name], content_type)


def text_response(body: str, content_type: str, status: HTTPStatus = HTTPStatus.OK) -> Response:
    """A plain response with the page's security headers (``/metrics``)."""
    return _response(status, body.encode("utf-8"), content_type)
