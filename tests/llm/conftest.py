"""Fixtures for the model-backend tests: the SDKs' httpx flavour, the bundled GGUF, no sleeping."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from conftest import require_module


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


@pytest.fixture
def mock_http() -> Callable[..., tuple[Any, list[Any]]]:
    """Factory: ``mock_http("anthropic", (429, body), (200, body))`` returns an http client for
    that SDK whose MockTransport answers the scripted (status, JSON body) replies in order,
    and the list the sent requests are appended to."""

    def build(sdk: str, *replies: tuple[int, dict[str, Any]]) -> tuple[Any, list[Any]]:
        pytest.importorskip(sdk)
        httpx = sdk_httpx(sdk)
        seen: list[Any] = []
        queue = list(replies)

        def handler(request: Any) -> Any:
            seen.append(request)
            status, body = queue.pop(0)
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
