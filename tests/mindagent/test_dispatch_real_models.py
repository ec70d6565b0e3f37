"""A real model dispatches in these tests: the embedded SmolLM2 in-process, and the same model
behind llama-cpp-python's OpenAI-compatible server through the `openai:` backend."""

from __future__ import annotations

import asyncio

import pytest

from mindagent.core import registry as domains
from mindagent.core.episode import run_episode
from mindagent.core.registry import make_session
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import make_brain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.recordings.recording import Recorder, read_recording
from mindagent.recordings.replay import replay_recording

STEPS = 3


def play(tmp_path, model: str, **brain_kw) -> list[dict]:
    spec = GameSpec("cuisineworld", "level_0", 2, 1.0, 0, "reference", STEPS)
    session = make_session(spec)
    session.world.reset()
    brain = make_brain(model, domains.get("cuisineworld"), max_tokens=24, timeout_s=300, **brain_kw)
    path = tmp_path / "real.jsonl"
    recorder = Recorder(path)
    recorder.header(**spec.header(), model=model, generator_state=session.world.episode_start_state)

    async def go():
        try:
            return await run_episode(session, Dispatcher(brain, PromptConfig(demo="few-step", memory=1)), recorder)
        finally:
            await brain.aclose()

    result = asyncio.run(go())
    assert result.steps == STEPS and result.prompt_tokens > 0 and result.output_tokens > 0
    assert replay_recording(path).steps == STEPS
    return [r for r in read_recording(path) if r["type"] == "step"]


@pytest.mark.slow
def test_local_model_plays_level_0_offline(tmp_path, smollm2_path):
    steps = play(tmp_path, "local")
    # the grammar makes every answer a well-formed command line per agent
    for step in steps:
        assert len(step["commands"]) == 2, step["calls"][0]["text"]
        assert [c.split("_")[1] for c in step["commands"]] == ["agent0", "agent1"]


@pytest.mark.slow
def test_openai_backend_plays_against_llama_cpp_server(tmp_path, llama_server):
    steps = play(tmp_path, "openai:smollm2", base_url=llama_server)
    assert all(step["calls"] and step["calls"][0]["usage"]["prompt_tokens"] > 100 for step in steps)
    assert all(isinstance(step["calls"][0]["text"], str) for step in steps)
