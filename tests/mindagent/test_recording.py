"""Recordings: written as the episode runs, re-executed by replay, and re-run through the
`replay:` backend to the same episode."""

from __future__ import annotations

import asyncio
import json

import pytest
from fakes import ScriptedModel

from mindagent.core.episode import run_episode
from mindagent.core.registry import make_session
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.llm import make_client
from mindagent.recordings.recording import Recorder, read_recording
from mindagent.recordings.replay import Divergence, replay_recording


def wander(n: int, messages) -> str:
    moves = ["goto_agent0_storage0\ngoto_agent1_storage0", "get_agent0_rice_storage0\nget_agent1_tuna_storage0",
             "goto_agent0_pot0\ngoto_agent1_chopboard0", "put_agent0_pot0\nput_agent1_chopboard0",
             "activate_agent0_pot0\nactivate_agent1_chopboard0", "garbage out", "noop_agent0\nget_agent1_chopboard0"]
    return moves[n % len(moves)]


def record(tmp_path, brain, spec=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 12), episodes=1):
    session = make_session(spec)
    paths = []
    for episode in range(1, episodes + 1):
        session.world.reset()
        path = tmp_path / f"ep{episode}.jsonl"
        recorder = Recorder(path)
        recorder.header(**spec.header(), model="scripted", generator_state=session.world.episode_start_state, episode=episode)
        asyncio.run(run_episode(session, Dispatcher(brain, PromptConfig(demo="none")), recorder))
        paths.append(path)
    return paths


def test_recording_has_every_step_and_replays(tmp_path):
    (path,) = record(tmp_path, LLMBrain(ScriptedModel(wander)))
    records = read_recording(path)
    kinds = [r["type"] for r in records]
    assert kinds == ["header"] + ["step"] * 12 + ["end"]
    step = records[6]
    for key in ("state", "orders", "calls", "commands", "verdicts", "feedback", "usage", "latency_s"):
        assert key in step
    assert step["calls"][0]["messages"][0]["role"] == "system"
    report = replay_recording(path)
    assert report.steps == 12


def test_second_episode_replays_from_its_generator_state(tmp_path):
    paths = record(tmp_path, LLMBrain(ScriptedModel(wander)), episodes=2)
    assert replay_recording(paths[1]).steps == 12


def test_replay_fails_loudly_on_divergence(tmp_path):
    (path,) = record(tmp_path, LLMBrain(ScriptedModel(wander)))
    lines = path.read_text().splitlines()
    step = json.loads(lines[3])
    step["verdicts"][0]["ok"] = not step["verdicts"][0]["ok"]
    lines[3] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(Divergence, match="step 2: verdicts differ"):
        replay_recording(path)


def test_replay_backend_reruns_the_episode_bit_identically(tmp_path):
    (first,) = record(tmp_path / "a", LLMBrain(ScriptedModel(wander)))
    (second,) = record(tmp_path / "b", LLMBrain(make_client(f"replay:{first}")))
    strip = lambda recs: [{k: v for k, v in r.items() if k not in ("latency_s", "model")} for r in recs]  # noqa: E731
    a, b = strip(read_recording(first)), strip(read_recording(second))
    assert len(a) == len(b)
    for ra, rb in zip(a, b, strict=True):
        for call in ra.get("calls", []) + rb.get("calls", []):
            call["usage"].pop("latency_s", None)
    assert a == b


def test_a_crash_loses_at_most_the_step_in_flight(tmp_path):
    class Boom(ScriptedModel):
        async def complete(self, messages, config, grammar=None):
            if len(self.sent) == 5:
                raise RuntimeError("power cut")
            return await super().complete(messages, config, grammar)

    spec = GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 12)
    session = make_session(spec)
    session.world.reset()
    path = tmp_path / "crash.jsonl"
    recorder = Recorder(path)
    recorder.header(**spec.header(), model="boom", generator_state=session.world.episode_start_state)
    with pytest.raises(RuntimeError):
        asyncio.run(run_episode(session, Dispatcher(LLMBrain(Boom(wander)), PromptConfig(demo="none")), recorder))
    records = read_recording(path)
    assert [r["type"] for r in records] == ["header"] + ["step"] * 5 + ["error"]  # the last line says how it ended
    assert records[-1]["kind"] == "RuntimeError" and records[-1]["message"] == "power cut"


def test_model_errors_become_idle_steps_not_crashes(tmp_path):
    from mindagent.llm.base import LLMError

    class Flaky(ScriptedModel):
        async def complete(self, messages, config, grammar=None):
            if len(self.sent) % 2:
                self.sent.append(list(messages))
                raise LLMError("rate limited for good")
            return await super().complete(messages, config, grammar)

    (path,) = record(tmp_path, LLMBrain(Flaky(wander)))
    steps = [r for r in read_recording(path) if r["type"] == "step"]
    assert len(steps) == 12
    assert any(s["calls"][0].get("error") for s in steps)
    assert any("No command was found" in line for s in steps for line in s["feedback"])
