"""Redaction by value: a provider that echoes the request's credentials back in its error body
(the ``Authorization: Basic`` header httpx builds from ``--base-url http://user:password@...``, the
API key header, the query string) leaks none of them into the results file, the recording or the
process's stderr (log lines included, at debug level), on the OpenAI and the Anthropic SDK.

The CLI runs as a real subprocess, so stderr is the process's own, not a test runner's capture."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from stub_llm import Reply, stub_server

USER, PASSWORD = "planted-user-5d2a", "PLANTED-pw-7c1d0e"
API_KEY, QUERY_KEY = "PLANTED-key-3e5f9b", "PLANTED-q-9a8b7c"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
PLANTED = (USER, PASSWORD, API_KEY, QUERY_KEY, BASIC)
ROOT = Path(__file__).resolve().parents[2]


def echo(path: str, headers: dict[str, str]) -> Reply:
    """A 400 whose message quotes the credentials first (so no length cut can hide them)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    said = f"denied: authorization={lowered.get('authorization')} x-api-key={lowered.get('x-api-key')} path={path}"
    return Reply(400, json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": said}}).encode())


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = "from mindagent.cli import app; app()"
    return subprocess.run([sys.executable, "-c", code, "-v", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=env)


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_no_planted_secret_in_results_recordings_or_stderr(tmp_path: Path, sdk: str) -> None:
    pytest.importorskip(sdk)
    seen: list[tuple[str, dict[str, str]]] = []
    env = {**os.environ, "PYTHONPATH": str(ROOT), f"{sdk.upper()}_API_KEY": API_KEY}

    def answer(path: str, body: bytes) -> Reply:
        headers = stub.seen[-1][1]
        seen.append((path, headers))
        return echo(path, headers)

    with stub_server(answer) as stub:
        base = f"http://{USER}:{PASSWORD}@127.0.0.1:{stub.port}" + ("/v1" if sdk == "openai" else "")
        base += f"?api-key={QUERY_KEY}"
        model = ["--model", f"{sdk}:stub", "--base-url", base, "--timeout", "10"]
        ran = cli("run", "--level", "level_0", "--steps", "2", "--out-dir", str(tmp_path / "run"), *model, env=env)
        out = tmp_path / "res.json"
        swept = cli("eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "2", "--taus", "1.0",
                    "--out", str(out), "--record", str(tmp_path / "rec"), *model, env=env)

    assert ran.returncode == 1 and swept.returncode == 1, ran.stderr + swept.stderr
    sent = " ".join(f"{p} {h}" for p, h in seen)
    assert BASIC in sent and QUERY_KEY in sent  # the stub really was handed the secrets to echo
    assert "denied: authorization=" in ran.stderr  # and its echo really reached the error text
    files = [p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file()]
    assert any('"failed"' in text and "denied" in text for text in files)  # the results kept the error
    outputs = {"run stdout": ran.stdout, "run stderr": ran.stderr, "eval stdout": swept.stdout,
               "eval stderr": swept.stderr, **{f"file {i}": text for i, text in enumerate(files)}}
    leaks = [(where, secret) for where, text in outputs.items() for secret in PLANTED if secret in text]
    assert leaks == []
