"""The output-token limit scales with the answer asked for, and a reply cut by it is a recorded error.

A limit fixed at 100 tokens cut an eight-agent answer after three agents' commands, and the half
answer was read as if the model had meant it; these tests hold the limit to the lines each call
needs and the cut reply to a ``ReplyCut`` error that replays the same way.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from stub_llm import Reply, stub_server

from mindagent.core import registry as domains
from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import AUTO_TOKENS, LLMBrain, generation_settings, make_brain, token_budget
from mindagent.dispatch.dispatcher import Dispatcher, DispatchSettings
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm.base import Completion, GenerationConfig, Message, Usage
from mindagent.recordings.recording import Recorder, read_recording


class Budgeted:
    """A fake model that keeps each call's max_tokens and answers noops, cut when told to."""

    name = "budgeted"

    def __init__(self, cut: bool = False) -> None:
        self.cut = cut
        self.limits: list[int] = []

    async def complete(self, messages: Sequence[Message], config: GenerationConfig,
                       grammar: str | None = None) -> Completion:
        self.limits.append(config.max_tokens)
        if self.cut:
            return Completion("noop_agent0\nnoop_ag", Usage(50, 0, config.max_tokens, 0.0), "budgeted", finish_reason="length")
        return Completion("noop_agent0\nnoop_agent1", Usage(50, 0, 8, 0.0), "budgeted", finish_reason="stop")

    async def aclose(self) -> None:
        return None


def play(brain: LLMBrain, agents: int = 2, dispatch: DispatchSettings | None = None, steps: int = 3,
         path: Path | None = None) -> list[dict[str, Any]]:
    spec = domains.validate(GameSpec("cuisineworld", "level_3", agents, 1.0, 0, "reference", steps))
    session = domains.make_session(spec)
    dispatcher = Dispatcher.for_session(session, brain, PromptConfig(demo="none"), dispatch=dispatch)
    recorder = Recorder(path) if path else None

    async def go() -> None:
        await session.reset(seed=0)
        if recorder:
            recorder.header(**spec.header(), model=brain.name, **session.episode_header())
        await run_episode(session, dispatcher, recorder)

    asyncio.run(go())
    if recorder and path:
        recorder.close()
        return [r for r in read_recording(path) if r["type"] == "step"]
    return []


@pytest.mark.parametrize(("agents", "dispatch", "limit"), [
    (2, DispatchSettings(), 100),  # the paper's team: the old fixed default
    (4, DispatchSettings(), 160),
    (8, DispatchSettings(), 280),
    (3, DispatchSettings("plan", plan_steps=3), token_budget(9)),  # a plan: a line per agent and step
    (2, DispatchSettings(team="decentral"), token_budget(2)),  # one agent's command and its say: line
])
def test_the_limit_scales_with_the_lines_asked_for(agents: int, dispatch: DispatchSettings, limit: int) -> None:
    model = Budgeted()
    play(LLMBrain(model, auto_tokens=True), agents, dispatch)
    assert model.limits and set(model.limits) == {limit}


def test_a_given_limit_stands_and_results_say_which() -> None:
    model = Budgeted()
    play(LLMBrain(model, GenerationConfig(max_tokens=77)), agents=8)
    assert set(model.limits) == {77}
    kitchen = domains.get("cuisineworld")
    auto = make_brain("openai:m", kitchen, base_url="http://127.0.0.1:9/v1")
    fixed = make_brain("openai:m", kitchen, base_url="http://127.0.0.1:9/v1", max_tokens=77)
    assert isinstance(auto, LLMBrain) and auto.auto_tokens and auto.config.max_tokens == token_budget(2)
    assert isinstance(fixed, LLMBrain) and not fixed.auto_tokens
    assert generation_settings("openai:m", brain=auto)["max_tokens"] == AUTO_TOKENS
    assert generation_settings("openai:m", max_tokens=77, brain=fixed)["max_tokens"] == 77


def test_a_cut_reply_is_recorded_as_an_error_not_read(tmp_path: Path) -> None:
    steps = play(LLMBrain(Budgeted(cut=True), auto_tokens=True), path=tmp_path / "cut.jsonl")
    calls = [c for s in steps for c in s["calls"]]
    assert calls and all(c["error_kind"] == "ReplyCut" and c["text"] == "" for c in calls)
    assert all("max_tokens=100" in c["error"] and c["usage"]["output_tokens"] == 100 for c in calls)
    assert all(s["commands"] == [] for s in steps)  # the half answer's noop_agent0 was never read

    replayed = play(make_brain(f"replay:{tmp_path / 'cut.jsonl'}", domains.get("cuisineworld")),
                    path=tmp_path / "again.jsonl")

    def calls_of(recorded: list[dict[str, Any]]) -> str:
        return json.dumps([[{k: v for k, v in c.items() if k != "usage"} | {"tokens": c["usage"]["output_tokens"]}
                            for c in s["calls"]] for s in recorded], sort_keys=True)

    assert calls_of(replayed) == calls_of(steps)


def _length_reply(path: str, body: bytes) -> Reply:
    reply = {"id": "c1", "object": "chat.completion", "created": 0, "model": "stub",
             "choices": [{"index": 0, "finish_reason": "length",
                          "message": {"role": "assistant", "content": "goto_agent0_stor"}}],
             "usage": {"prompt_tokens": 10, "completion_tokens": 100, "total_tokens": 110}}
    return Reply(200, json.dumps(reply).encode())


def test_the_openai_backend_passes_the_finish_reason_on() -> None:
    with stub_server(_length_reply) as stub:
        brain = make_brain("openai:stub", domains.get("cuisineworld"), base_url=stub.url, retries=0)
        assert isinstance(brain, LLMBrain)
        call = asyncio.run(brain.ask([Message("user", "go")], None, lines=2))
    assert call.error_kind == "ReplyCut" and call.text == "" and call.usage.output_tokens == 100
