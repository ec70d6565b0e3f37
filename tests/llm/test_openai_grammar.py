"""The OpenAI backend sends a caller's grammar where the server reads one, and reads cache hits
from every place servers report them: requests checked on a MockTransport, then the real
``python -m llama_cpp.server`` playing the kitchen through `mindagent run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mindagent.llm import BadRequest, GenerationConfig, Message, make_client
from mindagent.llm.openai_backend import OpenAIClient

pytest.importorskip("openai")

PROMPT = [Message("user", "Say one command for agent0.")]
GRAMMAR = 'root ::= "noop_agent0" | "goto_agent0_pot0"\n'
BASE = "http://127.0.0.1:9/v1"


def chat_body(usage: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1730000000, "model": "smollm2",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "noop_agent0"}}],
        "usage": usage or {"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43},
        **extra,
    }


def models_body(owner: str) -> dict[str, Any]:
    return {"object": "list", "data": [{"id": "smollm2", "object": "model", "created": 0, "owned_by": owner}]}


@pytest.mark.asyncio
@pytest.mark.parametrize(("field", "key"), [("llama", "grammar"), ("vllm", "guided_grammar")])
async def test_a_named_field_carries_the_grammar(mock_http: Any, field: str, key: str) -> None:
    http, seen = mock_http("openai", (200, chat_body()), (200, chat_body()))
    client = OpenAIClient("smollm2", base_url=BASE, http_client=http, grammar_field=field)
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=8), GRAMMAR)
    free = await client.complete(PROMPT, GenerationConfig(max_tokens=8))
    await client.aclose()
    body = json.loads(seen[0].content)
    assert body[key] == GRAMMAR and len(seen) == 2  # no probe when the field is named
    assert out.grammar_sent == field
    assert "grammar" not in json.loads(seen[1].content) and "guided_grammar" not in json.loads(seen[1].content)
    assert free.grammar_sent == ""


@pytest.mark.asyncio
@pytest.mark.parametrize(("owner", "field"), [("me", "llama"), ("llamacpp", "llama"), ("vllm", "vllm"),
                                              ("library", "")])
async def test_auto_tells_the_field_from_the_model_list_once(mock_http: Any, owner: str, field: str) -> None:
    http, seen = mock_http("openai", (200, models_body(owner)), (200, chat_body()), (200, chat_body()))
    client = make_client("openai:smollm2", base_url=BASE, http_client=http)
    first = await client.complete(PROMPT, GenerationConfig(max_tokens=8), GRAMMAR)
    again = await client.complete(PROMPT, GenerationConfig(max_tokens=8), GRAMMAR)
    await client.aclose()
    assert seen[0].url.path == "/v1/models" and len(seen) == 3  # asked once
    assert first.grammar_sent == again.grammar_sent == field
    body = json.loads(seen[2].content)
    assert body.get("grammar") == (GRAMMAR if field == "llama" else None)
    assert body.get("guided_grammar") == (GRAMMAR if field == "vllm" else None)


@pytest.mark.asyncio
async def test_auto_without_a_model_list_sends_no_grammar(mock_http: Any) -> None:
    http, seen = mock_http("openai", (404, {"error": {"message": "no such route"}}), (200, chat_body()))
    client = make_client("openai:smollm2", base_url=BASE, http_client=http)
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=8), GRAMMAR)
    await client.aclose()
    assert out.text == "noop_agent0" and out.grammar_sent == ""
    assert "grammar" not in json.loads(seen[1].content)


@pytest.mark.asyncio
async def test_the_hosted_api_gets_no_grammar(mock_http: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    http, seen = mock_http("openai", (200, chat_body()))
    client = make_client("openai:gpt-x", http_client=http)
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=8), GRAMMAR)
    await client.aclose()
    assert len(seen) == 1 and "grammar" not in json.loads(seen[0].content) and out.grammar_sent == ""


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(BadRequest, match="grammar field 'outlines'"):
        OpenAIClient("smollm2", base_url=BASE, grammar_field="outlines")


@pytest.mark.asyncio
@pytest.mark.parametrize(("usage", "extra", "cached"), [
    ({"prompt_tokens": 900, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 700}}, {}, 700),
    ({"prompt_tokens": 900, "completion_tokens": 3},
     {"timings": {"cache_n": 812, "prompt_n": 88, "prompt_ms": 410.5, "predicted_n": 3}}, 812),
    ({"prompt_tokens": 900, "completion_tokens": 3}, {"timings": {"cache_n": "lots"}}, 0),
    ({"prompt_tokens": 900, "completion_tokens": 3}, {}, 0),
], ids=["openai-details", "llama-server-timings", "nonsense-timings", "none-reported"])
async def test_cached_tokens_from_whichever_field_reports_them(mock_http: Any, usage: dict[str, Any],
                                                               extra: dict[str, Any], cached: int) -> None:
    http, _ = mock_http("openai", (200, chat_body(usage, **extra)))
    client = OpenAIClient("smollm2", base_url=BASE, http_client=http)
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=8))
    await client.aclose()
    assert out.usage.cached_tokens == cached and out.usage.prompt_tokens == 900


def _calls(recording: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    steps = [json.loads(line) for line in recording.read_text().splitlines()]
    return [(call, step.get("verdicts", [])) for step in steps if step.get("type") == "step" for call in step["calls"]]


@pytest.mark.slow
def test_run_against_llama_cpp_server_sends_the_legal_moves(llama_server: str, tmp_path: Path) -> None:
    """The issue's done-when: `mindagent run --model openai:...` against llama_cpp.server with SmolLM2
    gets no unknown-location refusal, and the recording says every answer was constrained.

    A short prompt (no demo, no memory) keeps the real server's prompt evaluation to about a
    thousand tokens a step on two shared cores."""
    out_dir = tmp_path / "rec"
    cmd = [sys.executable, "-c", "from mindagent.cli import main; main()", "run", "--level", "level_3",
           "--agents", "2", "--model", "openai:smollm2", "--base-url", llama_server, "--steps", "3",
           "--demo", "none", "--memory", "0", "--timeout", "600", "--out-dir", str(out_dir), "--json"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1500, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["model_errors"] == 0 and summary["steps"] == 3
    calls = _calls(Path(summary["recording"]))
    assert len(calls) == 3
    assert all(call["grammar"] == "llama" for call, _ in calls)
    verdicts = [v for _, vs in calls for v in vs]
    reasons = [str(v.get("reason")) for v in verdicts if not v.get("ok")]
    assert not [r for r in reasons if "unknown_location" in r], reasons
    assert sum(1 for v in verdicts if v.get("ok")) >= 5  # two agents' commands a step, nearly all accepted


def test_eval_sends_the_grammar_where_told_from_every_worker_and_keys_results_by_it(tmp_path: Path) -> None:
    """`--grammar-field` on `eval` (not only `run`): each worker's requests carry the grammar in
    the named field, the results say where it went, and a resume told another field is refused."""
    from stub_llm import chat, stub_server
    from typer.testing import CliRunner

    from mindagent.cli import app

    runner = CliRunner()
    out = tmp_path / "r.json"
    with stub_server(lambda path, body: chat("noop_agent0\nnoop_agent1")) as stub:
        args = ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "2", "--taus", "1.0,2.0",
                "--model", "openai:stub", "--base-url", stub.url, "--out", str(out), "--workers", "2"]
        swept = runner.invoke(app, [*args, "--grammar-field", "vllm"])
        assert swept.exit_code == 0, swept.output
        bodies = [json.loads(body) for _, _, body in stub.seen]
        assert len(bodies) == 4 and all("root" in b.get("guided_grammar", "") and "grammar" not in b for b in bodies)
        assert json.loads(out.read_text())["config"]["generation"]["grammar_field"] == "vllm"
        other = runner.invoke(app, [*args, "--grammar-field", "llama"])
    assert other.exit_code == 2 and "generation" in other.output and "refusing to mix" in other.output


def test_serve_passes_the_grammar_field_to_every_room_brain() -> None:
    import inspect

    from mindagent.dispatch.brains import make_brain

    source = (Path(__file__).resolve().parents[2] / "mindagent" / "cli" / "serve.py").read_text()
    options = source.split("brain_options={", 1)[1].split("}", 1)[0]
    keys = [part.split(":")[0].strip().strip('"') for part in options.split(",") if ":" in part]
    assert "grammar_field" in keys and set(keys) <= set(inspect.signature(make_brain).parameters)
