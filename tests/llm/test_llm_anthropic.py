"""The Anthropic backend at the HTTP layer, against recorded Messages API responses.

No Anthropic-compatible server runs offline, so these tests put an ``httpx.MockTransport``
(from the httpx flavour the installed SDK uses) under the real ``AsyncAnthropic`` client: the
SDK builds and sends real requests, and parses real-shaped responses recorded from the API.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
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
from mindagent.llm.anthropic_backend import AnthropicClient, build_request

pytest.importorskip("anthropic")

MODEL = "claude-haiku-4-5"
# Recorded response bodies (ids shortened), as the Messages API returns them.
OK_BODY: dict[str, Any] = {
    "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
    "type": "message",
    "role": "assistant",
    "model": "claude-haiku-4-5-20251001",
    "content": [{"type": "text", "text": "goto_agent0_storage0\nnoop_agent1"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 57,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 2210,
        "output_tokens": 14,
        "service_tier": "standard",
    },
}
RATE_LIMITED = {"type": "error", "error": {
    "type": "rate_limit_error",
    "message": "Number of request tokens has exceeded your per-minute rate limit"}}
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
BAD_REQUEST = {"type": "error", "error": {"type": "invalid_request_error",
                                          "message": "max_tokens: Field required"}}
UNAUTHORIZED = {"type": "error", "error": {"type": "authentication_error",
                                           "message": "invalid x-api-key"}}
FORBIDDEN = {"type": "error", "error": {
    "type": "permission_error",
    "message": "Your API key does not have permission to use the specified resource."}}
NOT_FOUND = {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-x"}}
TOO_LARGE = {"type": "error", "error": {"type": "request_too_large",
                                        "message": "Request exceeds the maximum allowed size."}}
API_ERROR = {"type": "error", "error": {"type": "api_error",
                                        "message": "An unexpected error has occurred."}}

PROMPT = [
    Message("system", "You are the dispatcher of a kitchen. Recipes: ..."),
    Message("system", "Instructions and examples: ...", cache_prefix=True),
    Message("user", "State at step 3: agent0 at servingtable0 ..."),
]


def sent_key(request: Any) -> str:
    """The API key a request carries (``x-api-key`` in anthropic<2, a Bearer token after)."""
    bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
    return request.headers.get("x-api-key") or bearer


def client_for(http_client: Any, sleep: Callable[..., Any] | None = None) -> AnthropicClient:
    return AnthropicClient(MODEL, api_key="sk-ant-test", http_client=http_client,
                           sleep=sleep, rng=random.Random(0))


@pytest.mark.asyncio
async def test_request_shape_and_usage(mock_http: Any) -> None:
    http, seen = mock_http("anthropic", (200, OK_BODY))
    client = client_for(http)
    out = await client.complete(PROMPT, GenerationConfig(temperature=0.1, max_tokens=100))
    await client.aclose()

    assert out.text == "goto_agent0_storage0\nnoop_agent1"
    assert out.model == "claude-haiku-4-5-20251001"
    assert out.usage.prompt_tokens == 57 + 2210 + 0
    assert out.usage.cached_tokens == 2210
    assert out.usage.output_tokens == 14
    assert out.usage.latency_s > 0

    (request,) = seen
    assert request.url.path == "/v1/messages"
    assert sent_key(request) == "sk-ant-test"
    body = json.loads(request.content)
    assert body["model"] == MODEL
    assert body["max_tokens"] == 100
    assert body["temperature"] == 0.1
    assert body["system"] == [
        {"type": "text", "text": "You are the dispatcher of a kitchen. Recipes: ..."},
        {"type": "text", "text": "Instructions and examples: ...",
         "cache_control": {"type": "ephemeral"}},
    ]
    assert body["messages"] == [
        {"role": "user",
         "content": [{"type": "text", "text": "State at step 3: agent0 at servingtable0 ..."}]},
    ]


@pytest.mark.asyncio
async def test_cache_breakpoint_on_a_user_message(mock_http: Any) -> None:
    http, seen = mock_http("anthropic", (200, OK_BODY))
    client = client_for(http)
    prompt = [Message("system", "rules"), Message("user", "few-shot examples", cache_prefix=True),
              Message("assistant", "noop_agent0"), Message("user", "state")]
    await client.complete(prompt, GenerationConfig())
    await client.aclose()
    body = json.loads(seen[0].content)
    assert body["system"] == [{"type": "text", "text": "rules"}]
    first = body["messages"][0]["content"][0]
    assert first["cache_control"] == {"type": "ephemeral"}
    marked = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
    assert len(marked) == 1


def test_consecutive_turns_are_merged() -> None:
    system, turns = build_request([Message("user", "a"), Message("user", "b"),
                                   Message("assistant", "c")])
    assert system == []
    assert [t["role"] for t in turns] == ["user", "assistant"]
    assert [b["text"] for b in turns[0]["content"]] == ["a", "b"]
    with pytest.raises(BadRequest, match="at least one user message"):
        build_request([Message("system", "only rules")])


@pytest.mark.asyncio
async def test_429_then_529_then_200_is_retried(mock_http: Any, fake_sleep: Any) -> None:
    http, seen = mock_http("anthropic", (429, RATE_LIMITED), (529, OVERLOADED), (200, OK_BODY))
    client = client_for(http, sleep=fake_sleep)
    out = await client.complete(PROMPT, GenerationConfig(max_retries=4))
    await client.aclose()
    assert out.text.startswith("goto_agent0")
    assert len(seen) == 3  # the SDK's own retries are off: every attempt is ours
    assert len(fake_sleep.waits) == 2
    assert all(0 < w <= 30 for w in fake_sleep.waits)


@pytest.mark.asyncio
async def test_400_is_not_retried(mock_http: Any, fake_sleep: Any) -> None:
    http, seen = mock_http("anthropic", (400, BAD_REQUEST), (200, OK_BODY))
    client = client_for(http, sleep=fake_sleep)
    with pytest.raises(BadRequest, match="HTTP 400") as info:
        await client.complete(PROMPT, GenerationConfig())
    await client.aclose()
    assert "max_tokens: Field required" in str(info.value)
    assert len(seen) == 1 and fake_sleep.waits == []


@pytest.mark.asyncio
async def test_model_that_rejects_temperature(mock_http: Any, fake_sleep: Any) -> None:
    """Claude models after Opus 4.6 answer 400 to any temperature; we drop it and go on."""
    rejected = {"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "`temperature` is deprecated for this model."}}
    http, seen = mock_http("anthropic", (400, rejected), (200, OK_BODY), (200, OK_BODY))
    client = client_for(http, sleep=fake_sleep)
    out = await client.complete(PROMPT, GenerationConfig(temperature=0.1))
    await client.complete(PROMPT, GenerationConfig(temperature=0.1))
    await client.aclose()
    assert out.text.startswith("goto_agent0")
    bodies = [json.loads(r.content) for r in seen]
    assert "temperature" in bodies[0]
    assert "temperature" not in bodies[1] and "temperature" not in bodies[2]
    assert fake_sleep.waits == []


@pytest.mark.asyncio
async def test_overloaded_until_retries_run_out(mock_http: Any, fake_sleep: Any) -> None:
    http, seen = mock_http("anthropic", *[(529, OVERLOADED)] * 3)
    client = client_for(http, sleep=fake_sleep)
    with pytest.raises(ModelUnavailable, match="failed after 3 attempts: HTTP 529"):
        await client.complete(PROMPT, GenerationConfig(max_retries=2))
    await client.aclose()
    assert len(seen) == 3


@pytest.mark.asyncio
async def test_missing_api_key_is_a_clear_error() -> None:
    client = make_client(f"anthropic:{MODEL}")  # the autouse fixture removed ANTHROPIC_API_KEY
    with pytest.raises(AuthFailed, match="no API key; set ANTHROPIC_API_KEY"):
        await client.complete(PROMPT, GenerationConfig())
    await client.aclose()


@pytest.mark.asyncio
async def test_key_from_environment(mock_http: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    http, seen = mock_http("anthropic", (200, OK_BODY))
    client = make_client(f"anthropic:{MODEL}", http_client=http)
    await client.complete(PROMPT, GenerationConfig())
    await client.aclose()
    assert sent_key(seen[0]) == "sk-ant-from-env"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, UNAUTHORIZED, AuthFailed),
        (403, FORBIDDEN, AuthFailed),
        (404, NOT_FOUND, BadRequest),
        (413, TOO_LARGE, BadRequest),
    ],
)
async def test_refusals_have_their_kind_at_once(
    mock_http: Any, fake_sleep: Any, status: int, body: dict[str, Any], kind: type[LLMError]
) -> None:
    http, seen = mock_http("anthropic", (status, body), (200, OK_BODY))
    client = client_for(http, sleep=fake_sleep)
    with pytest.raises(kind, match=f"^anthropic:{MODEL}: HTTP {status}: ") as info:
        await client.complete(PROMPT, GenerationConfig(max_retries=4))
    await client.aclose()
    assert body["error"]["message"] in str(info.value)
    assert len(seen) == 1 and fake_sleep.waits == []  # the same request would fail again


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("reply", "kind", "reason"),
    [
        ((429, RATE_LIMITED), RateLimited, "HTTP 429"),
        ((500, API_ERROR), ModelUnavailable, "HTTP 500"),
        ("ReadTimeout", ModelTimeout, "APITimeoutError"),
        ("ConnectError", ModelUnavailable, "APIConnectionError"),
    ],
)
async def test_transient_failures_have_their_kind_when_retries_run_out(
    mock_http: Any, fake_sleep: Any, reply: Any, kind: type[LLMError], reason: str
) -> None:
    http, seen = mock_http("anthropic", *[reply] * 3)
    client = client_for(http, sleep=fake_sleep)
    with pytest.raises(kind, match=f"^anthropic:{MODEL} failed after 3 attempts: {reason}"):
        await client.complete(PROMPT, GenerationConfig(max_retries=2))
    await client.aclose()
    assert len(seen) == 3 and len(fake_sleep.waits) == 2


@pytest.mark.asyncio
async def test_real_client_timeout_is_a_model_timeout(silent_server: str, fake_sleep: Any) -> None:
    """A server that accepts but never answers: the SDK's httpx timer or the call's overall
    deadline runs out (they are set alike, so either may be first); both are a `ModelTimeout`."""
    client = AnthropicClient(MODEL, api_key="sk-ant-test", base_url=silent_server,
                             sleep=fake_sleep)
    with pytest.raises(ModelTimeout, match=r"failed after 2 attempts: APITimeoutError|no answer within 0.2s"):
        await client.complete(PROMPT, GenerationConfig(timeout_s=0.2, max_retries=1))
    await client.aclose()


@pytest.mark.asyncio
async def test_refused_connection_is_model_unavailable(closed_port_url: str,
                                                       fake_sleep: Any) -> None:
    client = AnthropicClient(MODEL, api_key="sk-ant-test", base_url=closed_port_url,
                             sleep=fake_sleep)
    with pytest.raises(ModelUnavailable, match="failed after 2 attempts: APIConnectionError"):
        await client.complete(PROMPT, GenerationConfig(max_retries=1))
    await client.aclose()
