"""Fixtures for the model-backend tests: the SDKs' httpx flavour, the bundled GGUF, no sleeping."""

from __future__ import annotations

import importlib
import importlib.util
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import require_module, running_llama_server


def sdk_httpx(sdk: str) -> ModuleType:
    """The httpx module an SDK validates ``http_client`` against.

    anthropic>=1 / openai>=3 use the ``httpx2`` fork and refuse an ``httpx.AsyncClient``;
    older releases use ``httpx``. Tests build their MockTransport client from whichever it is.
    """
    base = importlib.import_module(f"{sdk}._base_client")
    for name in ("httpx2", "httpx"):
        module = getattr(base, name, None)
        if isinstance(module, ModuleType):
            return module
    raise RuntimeError(f"cannot tell which httpx {sdk} uses")


class FakeSleep:
    """Records the backoff waits instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


Reply = tuple[int, dict[str, Any]] | str


@pytest.fixture
def mock_http() -> Callable[..., tuple[Any, list[Any]]]:
    """Factory: ``mock_http("anthropic", (429, body), (200, body))`` returns an http client for
    that SDK whose MockTransport answers the scripted (status, JSON body) replies in order,
    and the list the sent requests are appended to.

    A reply may instead name an httpx transport error (``"ReadTimeout"``, ``"ConnectError"``):
    the transport raises it, as httpx does when the client-side timeout runs out or the
    connection is refused, and the SDK wraps it in its own error as in production."""

    def build(sdk: str, *replies: Reply) -> tuple[Any, list[Any]]:
        pytest.importorskip(sdk)
        httpx = sdk_httpx(sdk)
        seen: list[Any] = []
        queue = list(replies)

        def handler(request: Any) -> Any:
            seen.append(request)
            reply = queue.pop(0)
            if isinstance(reply, str):
                raise getattr(httpx, reply)(f"mock transport: {reply}", request=request)
            status, body = reply
            return httpx.Response(status, json=body, headers={"request-id": f"req_{len(seen)}"})

        return httpx.AsyncClient(transport=httpx.MockTransport(handler)), seen

    return build


@pytest.fixture
def llama_cpp_module() -> Any:
    require_module("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    return importlib.import_module("llama_cpp")


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see a developer's real keys, so nothing can reach a paid API by accident."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture
def silent_server() -> Iterator[str]:
    """``http://127.0.0.1:<port>`` of a socket that listens but never accepts: the kernel
    completes the handshake, the request is sent, and no answer ever comes, so only a
    client-side timeout ends the call."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def closed_port_url() -> str:
    """``http://127.0.0.1:<port>`` with nothing listening: connecting is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def keyed_llama_server(smollm2_path: Path, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Like the shared ``llama_server`` fixture, but started with ``--api_key``, so a request
    with another key gets the server's real 401. Yields (base URL, key); always killed after."""
    key = "sk-local-test"
    with running_llama_server(smollm2_path, tmp_path / "keyed_llama_server.log", n_ctx=1024, api_key=key) as base:
        yield base, key
