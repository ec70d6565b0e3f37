"""`MINDAGENT_HTTP_HEADERS`: headers a gateway wants reach it on both SDKs, in worker processes
too, a credential header among them shows up in no output, and a bad value is one line before any
request. The CLI runs as a real subprocess against a loopback stub that records the headers it got."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stub_llm import chat, messages_reply, stub_server

from mindagent.llm.base import BadRequest
from mindagent.llm.extra_headers import HEADERS_ENV, MAX_CHARS, extra_headers

ROOT = Path(__file__).resolve().parents[2]
GATEWAY_KEY = "PLANTED-gw-6f1e2d"
HEADERS = {"HTTP-Referer": "https://example.org/study", "X-Title": "mindagent test", "api-key": GATEWAY_KEY}


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from mindagent.cli import app; app()", "-v", *args],
                          capture_output=True, text=True, timeout=180, cwd=ROOT, env=env)


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_the_headers_reach_the_server_from_every_worker_and_the_key_is_never_shown(tmp_path: Path, sdk: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), f"{sdk.upper()}_API_KEY": "sk-test-123456",
           HEADERS_ENV: json.dumps(HEADERS)}
    reply = chat("noop_agent0\nnoop_agent1") if sdk == "openai" else messages_reply("noop_agent0\nnoop_agent1")
    with stub_server(lambda path, body: reply) as stub:
        base = f"http://127.0.0.1:{stub.port}" + ("/v1" if sdk == "openai" else "")
        swept = cli("eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "2", "--taus",
                    "1.0,2.0", "--workers", "2", "--model", f"{sdk}:stub", "--base-url", base, "--out",
                    str(tmp_path / "r.json"), "--record", str(tmp_path / "rec"), env=env)
    assert swept.returncode == 0, swept.stderr
    assert len(stub.seen) == 4  # two units of two steps, each in its own worker process
    for _, headers, _ in stub.seen:
        lowered = {k.lower(): v for k, v in headers.items()}
        assert all(lowered.get(name.lower()) == value for name, value in HEADERS.items()), headers
    files = [p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file()]
    assert files and not any(GATEWAY_KEY in text for text in [swept.stdout, swept.stderr, *files])


@pytest.mark.parametrize(("value", "says"), [
    ("{not json", "not a JSON object"),
    ('["a", "b"]', "must be a JSON object"),
    ('{"X-Ok": 3}', "one line of text"),
    ('{"X-Ok": "a\\r\\nInjected: yes"}', "one line of text"),
    ('{"bad name": "x"}', "is not a header name"),
    ('{"Content-Type": "text/plain"}', "set by the SDK"),
])
def test_a_bad_value_is_one_line_before_any_request(tmp_path: Path, value: str, says: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test-123456", HEADERS_ENV: value}
    with stub_server(lambda path, body: chat("noop_agent0")) as stub:
        ran = cli("run", "--level", "level_0", "--steps", "1", "--model", "openai:stub", "--base-url",
                  f"http://127.0.0.1:{stub.port}/v1", "--out-dir", str(tmp_path), env=env)
    assert ran.returncode != 0 and stub.seen == []
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and HEADERS_ENV in lines[0] and says in lines[0], ran.stderr


def test_unset_or_empty_adds_nothing() -> None:
    assert extra_headers({}) == {} and extra_headers({HEADERS_ENV: "  "}) == {}
    assert extra_headers({HEADERS_ENV: json.dumps({"X-B": "2", "X-A": "1"})}) == {"X-A": "1", "X-B": "2"}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400) | st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                                            lambda inner: st.lists(inner) | st.dictionaries(st.text(max_size=20), inner),
                                            max_leaves=20).map(json.dumps))
def test_any_value_is_taken_or_refused_in_one_line(value: str) -> None:
    try:
        headers = extra_headers({HEADERS_ENV: value})
    except BadRequest as exc:
        assert "\n" not in str(exc) and HEADERS_ENV in str(exc)
    else:
        assert all(isinstance(k, str) and isinstance(v, str) and "\n" not in v for k, v in headers.items())


def test_a_huge_or_deeply_nested_value_is_refused_at_once() -> None:
    many = json.dumps({f"X-{i}": "v" * 100 for i in range(1000)})
    for value in ("[" * 200_000, "[" * (MAX_CHARS - 1), '{"a": ' * 2000, many, "{" + " " * 10_000_000 + "}"):
        started = time.perf_counter()
        with pytest.raises(BadRequest):
            extra_headers({HEADERS_ENV: value})
        assert time.perf_counter() - started < 0.5
    assert MAX_CHARS < 10_000_000
