"""Replaying a recorded episode: keyed by the exact prompt, FIFO for repeats, loud on drift."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from mindagent.llm import (
    BadRequest,
    GenerationConfig,
    LLMError,
    Message,
    ModelUnavailable,
    RateLimited,
    make_client,
    prompt_key,
)
from mindagent.llm.replay_backend import ReplayClient

CFG = GenerationConfig()
SYSTEM = {"role": "system", "content": "Recettes: sashimi de thon — 🍣"}


def call(user: str, text: str, prompt_tokens: int = 100) -> dict[str, Any]:
    return {
        "messages": [SYSTEM, {"role": "user", "content": user}],
        "text": text,
        "usage": {"prompt_tokens": prompt_tokens, "cached_tokens": 80, "output_tokens": 7,
                  "latency_s": 0.25},
    }


def msgs(user: str) -> list[Message]:
    return [Message("system", SYSTEM["content"], cache_prefix=True), Message("user", user)]


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    lines = [
        {"type": "header", "model": "anthropic:claude-haiku-4-5", "level": "level_0"},
        {"type": "step", "step": 0,
         "calls": [call("state 0", "goto_agent0_storage0\nnoop_agent1")]},
        # step 1: a repair loop asked twice; the state repeats at step 2 with the same prompt
        {"type": "step", "step": 1, "calls": [call("state 1", "gibberish"),
                                              call("state 1", "noop_agent0\nnoop_agent1", 120)]},
        {"type": "step", "step": 2,
         "calls": [call("state 1", "get_agent0_tuna_storage0\nnoop_agent1")]},
        {"type": "summary", "score": 1.0},
    ]
    path = tmp_path / "episode.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n",
                    encoding="utf-8")
    return path


def test_prompt_key_is_canonical_json_sha256() -> None:
    messages = msgs("state 0")
    canonical = json.dumps([SYSTEM, {"role": "user", "content": "state 0"}], sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert prompt_key(messages) == expected
    # dicts with extra keys or another key order hash the same; cache_prefix does not count
    assert prompt_key([{"content": SYSTEM["content"], "role": "system", "extra": 1},
                       {"role": "user", "content": "state 0"}]) == expected
    assert prompt_key(msgs("state 0 ")) != expected


@pytest.mark.asyncio
async def test_replays_in_order_with_usage(cassette: Path) -> None:
    client = make_client(f"replay:{cassette}")
    assert isinstance(client, ReplayClient) and client.remaining == 4
    first = await client.complete(msgs("state 0"), CFG)
    assert first.text == "goto_agent0_storage0\nnoop_agent1"
    assert (first.usage.prompt_tokens, first.usage.cached_tokens, first.usage.output_tokens,
            first.usage.latency_s) == (100, 80, 7, 0.25)
    # the same prompt three times: the two repair-loop answers, then step 2's, in that order
    texts = [(await client.complete(msgs("state 1"), CFG)).text for _ in range(3)]
    assert texts == ["gibberish", "noop_agent0\nnoop_agent1",
                     "get_agent0_tuna_storage0\nnoop_agent1"]
    assert client.remaining == 0
    await client.aclose()


@pytest.mark.asyncio
async def test_unknown_prompt_names_hash_and_position(cassette: Path) -> None:
    client = ReplayClient(cassette)
    await client.complete(msgs("state 0"), CFG)
    drifted = msgs("state 1, but the prompt template changed")
    with pytest.raises(BadRequest) as info:
        await client.complete(drifted, CFG)
    message = str(info.value)
    assert "cassette has no answer for this prompt" in message
    assert prompt_key(drifted) in message
    assert "the prompt differs from the recording" in message
    assert "step 1, call 0" in message


@pytest.mark.asyncio
async def test_exhausted_prompt(cassette: Path) -> None:
    client = ReplayClient(cassette)
    await client.complete(msgs("state 0"), CFG)
    with pytest.raises(BadRequest, match="every answer to it is used up"):
        await client.complete(msgs("state 0"), CFG)


@pytest.mark.asyncio
async def test_recorded_failure_fails_again(tmp_path: Path) -> None:
    failed = {**call("state 9", ""), "error": "anthropic:claude-haiku-4-5: HTTP 400: bad"}
    path = tmp_path / "failed.jsonl"
    path.write_text(json.dumps({"type": "step", "step": 9, "calls": [failed]}) + "\n")
    client = ReplayClient(path)
    with pytest.raises(LLMError) as info:
        await client.complete(msgs("state 9"), CFG)
    assert str(info.value) == "anthropic:claude-haiku-4-5: HTTP 400: bad"
    assert type(info.value) is LLMError  # an older recording has no kind to restore
    assert client.remaining == 0


@pytest.mark.asyncio
@pytest.mark.parametrize(("kind", "raised"), [("RateLimited", RateLimited),
                                              ("BadRequest", BadRequest),
                                              ("LLMError", LLMError),
                                              ("SomethingNewer", LLMError)])
async def test_recorded_failure_keeps_its_kind(tmp_path: Path, kind: str,
                                               raised: type[LLMError]) -> None:
    message = "anthropic:claude-haiku-4-5 failed after 5 attempts: HTTP 429: slow down"
    failed = {**call("state 9", ""), "error": message, "error_kind": kind}
    path = tmp_path / "failed.jsonl"
    path.write_text(json.dumps({"type": "step", "step": 9, "calls": [failed]}) + "\n")
    with pytest.raises(LLMError) as info:
        await ReplayClient(path).complete(msgs("state 9"), CFG)
    assert type(info.value) is raised
    assert str(info.value) == message


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="cannot read cassette"):
        ReplayClient(tmp_path / "missing.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "step", "calls": []}\nnot json\n')
    with pytest.raises(ModelUnavailable, match=r"broken.jsonl:2: not JSON"):
        ReplayClient(broken)
    no_text = tmp_path / "no_text.jsonl"
    no_text.write_text(json.dumps({"type": "step", "calls": [{"messages": []}]}) + "\n")
    with pytest.raises(ModelUnavailable, match="lacks messages/text"):
        ReplayClient(no_text)


@pytest.mark.asyncio
async def test_cassette_written_by_the_dispatchers_call_records(tmp_path: Path) -> None:
    """The key contract with the recorder: `Call.to_dict()` lines replay through prompt_key."""
    brains = pytest.importorskip("mindagent.dispatch.brains")
    from mindagent.llm import Usage

    sent = msgs("state 4")
    recorded = brains.Call(sent, "noop_agent0\nnoop_agent1", Usage(10, 4, 6, 0.5)).to_dict()
    path = tmp_path / "rec.jsonl"
    path.write_text(json.dumps({"type": "header"}) + "\n"
                    + json.dumps({"type": "step", "step": 4, "calls": [recorded]}) + "\n")
    out = await ReplayClient(path).complete(sent, CFG)
    assert out.text == "noop_agent0\nnoop_agent1"
    assert out.usage == Usage(10, 4, 6, 0.5)


@pytest.mark.asyncio
async def test_how_a_grammar_constrained_the_answer_is_replayed(tmp_path: Path) -> None:
    """A replayed call says what the recorded one said (``"grammar": "llama"``), so a replay of a
    constrained run records the same calls; a call recorded without it says nothing."""
    constrained = {**call("state 0", "noop_agent0\nnoop_agent1"), "grammar": "llama"}
    lines = [{"type": "step", "step": 0, "calls": [constrained, call("state 1", "noop_agent0\nnoop_agent1")]}]
    path = tmp_path / "constrained.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    client = ReplayClient(path)
    assert (await client.complete(msgs("state 0"), CFG)).grammar_sent == "llama"
    assert (await client.complete(msgs("state 1"), CFG)).grammar_sent == ""
