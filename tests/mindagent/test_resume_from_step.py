"""A unit that fails mid-episode is continued from its last played step on resume, and the
continued unit is the one an unbroken run plays: same steps, same results, only the missing calls.

A loopback stub answers as a function of the prompt (so the game's course depends on every answer)
and, in the broken run, refuses every request from call 41 on with 429 and a Retry-After far past
`--max-retry-after`: the unit fails at step 40. The stub counts the requests of each run.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from stub_llm import RateLimitFrom, stub_server
from typer.testing import CliRunner

import mindagent.llm.retry as retry
from mindagent.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry, "BASE_BACKOFF_S", 0.001)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def moves(body: bytes) -> str:
    """Each agent walks to a place chosen by a hash of the state it is shown: a different state
    gets different commands, so a replay that drifted by one step would show at once."""
    state = json.loads(body)["messages"][-1]["content"]
    places = re.findall(r"inside\((\w+),", state) or ["storage0"]
    digest = hashlib.sha256(state.encode()).digest()
    return "\n".join(f"goto_agent{a}_{places[digest[a] % len(places)]}" for a in range(2))


def sweep(url: str, out: Path, record: Path, episodes: int, steps: int, *extra: str):
    return runner.invoke(app, ["eval", "--levels", "level_1", "--agents", "2", "--taus", "1.0", "--episodes",
                               str(episodes), "--steps", str(steps), "--model", "openai:stub", "--base-url", url,
                               "--out", str(out), "--record", str(record), "--retries", "2",
                               "--max-retry-after", "0.01", *extra])


def played(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Every recording's lines but the timings (a replayed answer keeps its first latency)."""
    out = {}
    for path in sorted(folder.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            line.pop("latency_s", None)
            for call in line.get("calls", []):
                call["usage"].pop("latency_s", None)
        out[path.name] = lines
    return out


def cells(out: Path) -> list[dict[str, Any]]:
    data = json.loads(out.read_text())
    for cell in data["cells"]:
        for tau in cell["taus"]:
            tau.pop("replayed_calls", None)
    return data["cells"]


@pytest.mark.parametrize(("episodes", "steps", "healthy", "workers"),
                         [(1, 60, 40, "1"), (2, 30, 40, "1"), (1, 20, 12, "2")])
def test_a_unit_failed_at_step_40_continues_from_there(tmp_path: Path, episodes: int, steps: int,
                                                        healthy: int, workers: str) -> None:
    """In this process, and in a pool of worker processes (the checkpoint travels both ways)."""
    whole, outage, rest = RateLimitFrom(moves), RateLimitFrom(moves, healthy=healthy), RateLimitFrom(moves)
    out, record = tmp_path / "r.json", tmp_path / "rec"
    episode, step = divmod(healthy, steps)
    with stub_server(whole) as stub:  # one server throughout: its address is part of the settings
        unbroken = sweep(stub.url, tmp_path / "whole.json", tmp_path / "whole", episodes, steps, "--workers", workers)
        assert unbroken.exit_code == 0, unbroken.output
        total = whole.answered
        assert total == episodes * steps and whole.refused == 0

        stub.answer = outage
        broken = sweep(stub.url, out, record, episodes, steps, "--workers", workers)
        assert broken.exit_code == 1 and outage.answered == healthy and outage.refused == 3  # 1 try + 2 retries
        failed = json.loads(out.read_text())["failed"]
        assert len(failed) == 1 and "RateLimited" in failed[0]["error"]
        assert failed[0]["checkpoint"]["episode"] == episode + 1 and failed[0]["checkpoint"]["step"] == step
        assert len(failed[0]["checkpoint"]["answers"]) == healthy
        assert f"stopped at episode {episode + 1}, step {step}" in broken.output

        stub.answer = rest
        resumed = sweep(stub.url, out, record, episodes, steps, "--workers", workers)
    assert resumed.exit_code == 0, resumed.output
    assert rest.answered == total - healthy and rest.refused == 0  # only the calls it had not made
    data = json.loads(out.read_text())
    assert data["failed"] == [] and data["cells"][0]["taus"][0]["replayed_calls"] == healthy
    assert cells(out) == cells(tmp_path / "whole.json")  # counts, tokens and every metric
    assert played(record) == played(tmp_path / "whole")  # every state, prompt, answer and verdict


def test_a_changed_setting_is_refused_on_a_checkpointed_file(tmp_path: Path) -> None:
    out, record = tmp_path / "r.json", tmp_path / "rec"
    with stub_server(RateLimitFrom(moves, healthy=5)) as stub:
        assert sweep(stub.url, out, record, 1, 10).exit_code == 1
        before = out.read_bytes()
        refused = sweep(stub.url, out, record, 1, 10, "--temperature", "0.5")
    assert refused.exit_code == 2
    lines = [line for line in refused.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "temperature" in lines[0] and "use another --out" in lines[0]
    assert out.read_bytes() == before  # the checkpoint is kept for the right settings


def test_a_checkpoint_that_no_longer_matches_is_played_again(tmp_path: Path) -> None:
    """Answers recorded for other prompts (edited by hand here; a changed prompt in real life) are
    never used for the wrong prompt: those steps go to the model, and the run says so."""
    out, record = tmp_path / "r.json", tmp_path / "rec"
    rest = RateLimitFrom(moves)
    with stub_server(RateLimitFrom(moves, healthy=5)) as stub:
        assert sweep(stub.url, out, record, 1, 10).exit_code == 1
        data = json.loads(out.read_text())
        for answer in data["failed"][0]["checkpoint"]["answers"]:
            answer["prompt"] = "0" * 64
        out.write_text(json.dumps(data))
        stub.answer = rest
        again = sweep(stub.url, out, record, 1, 10)
    assert again.exit_code == 0, again.output
    assert rest.answered == 10 and "replayed_calls" not in json.loads(out.read_text())["cells"][0]["taus"][0]


@pytest.mark.parametrize("damage", ["checkpoint", "entry"])
def test_a_damaged_checkpoint_starts_the_unit_over(tmp_path: Path, damage: str) -> None:
    """A checkpoint (or a failed entry) edited into nonsense is left out with a warning: the unit
    is played from its first step, never crashed on, never half-replayed."""
    out, record = tmp_path / "r.json", tmp_path / "rec"
    rest = RateLimitFrom(moves)
    with stub_server(RateLimitFrom(moves, healthy=5)) as stub:
        assert sweep(stub.url, out, record, 1, 10).exit_code == 1
        data = json.loads(out.read_text())
        if damage == "checkpoint":
            data["failed"][0]["checkpoint"]["answers"] = "junk"
        else:
            data["failed"] = [{"level": "level_1"}, *data["failed"][1:]]
        out.write_text(json.dumps(data))
        stub.answer = rest
        again = sweep(stub.url, out, record, 1, 10)
    assert again.exit_code == 0, again.output
    assert rest.answered == 10 and json.loads(out.read_text())["failed"] == []


def test_a_run_stopped_mid_unit_keeps_what_it_played(tmp_path: Path) -> None:
    """Ctrl-C cancels the sweep's task: the unit in flight is saved with its checkpoint before the
    run stops, and the next run asks only the calls it had not made."""
    import asyncio

    from fakes import ScriptedModel

    from mindagent.dispatch.brains import LLMBrain
    from mindagent.evaluation.sweep import EvalConfig, Results, run_eval

    class Stalls(ScriptedModel):
        """Answers `moves`-like commands, and never returns from call `at` on (a hung request)."""

        def __init__(self, at: int) -> None:
            super().__init__(lambda n, messages: "goto_agent0_storage0\ngoto_agent1_blender0")
            self.at = at
            self.reached = asyncio.Event()

        async def complete(self, messages, config, grammar=None):
            if len(self.sent) == self.at:
                self.reached.set()
                await asyncio.Event().wait()
            return await super().complete(messages, config, grammar)

    config = EvalConfig(levels=["level_0"], agents=[2], model="scripted", taus=[1.0], episodes=1, steps=12)
    out = tmp_path / "r.json"

    async def stop_at_call_7() -> Stalls:
        model = Stalls(7)
        task = asyncio.create_task(run_eval(config, Results(out, config), lambda: LLMBrain(model)))
        await model.reached.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return model

    asyncio.run(stop_at_call_7())
    failed = json.loads(out.read_text())["failed"]
    assert failed[0]["error"] == "interrupted: the run was stopped"
    assert failed[0]["checkpoint"]["step"] == 7 and len(failed[0]["checkpoint"]["answers"]) == 7
    rest = ScriptedModel(lambda n, messages: "goto_agent0_storage0\ngoto_agent1_blender0")
    results = asyncio.run(run_eval(config, Results(out, config), lambda: LLMBrain(rest)))
    assert len(rest.sent) == 12 - 7 and results.done[("level_0", 2)][1.0].replayed_calls == 7


class FailsFrom:
    """A model whose answer is a function of the prompt (so the game's course depends on every one),
    refusing every call from call `at` on (None: never). `calls` counts the calls it answered."""

    name = "fails-from"

    def __init__(self, at: int | None = None) -> None:
        self.at = at
        self.calls = 0

    async def complete(self, messages, config, grammar=None):
        from mindagent.llm.base import Completion, RateLimited, Usage

        if self.at is not None and self.calls >= self.at:
            raise RateLimited("rate limit reached, after the retries")
        self.calls += 1
        text = messages[-1].content
        goal = re.search(r"Choose from: (.*)", text)
        if goal:
            options = goal[1].split(", ")
            answer = f"goal: {options[hashlib.sha256(text.encode()).digest()[0] % len(options)]}"
        else:
            places = re.findall(r"inside\((\w+),", text) or ["storage0"]
            digest = hashlib.sha256(text.encode()).digest()
            answer = "\n".join(f"goto_agent{a}_{places[digest[a] % len(places)]}" for a in range(2))
        return Completion(answer, Usage(prompt_tokens=len(text) // 4, output_tokens=8, latency_s=0.001))

    async def aclose(self) -> None:
        return None


MODES = {"step": ("level_1", 12, {}), "plan": ("level_1", 12, {"mode": "plan", "plan_steps": 3}),
         "goals": ("level_4", 30, {"mode": "goals", "goal_every": 2})}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_unit_continued_from_any_call_equals_an_unbroken_one(mode: str) -> None:
    """Whatever call the outage starts at (the first, one at an episode's edge, a plan's or a
    goal's), the continued unit plays exactly what an unbroken one plays, with only the calls left."""
    import asyncio
    import dataclasses

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mindagent.dispatch.brains import LLMBrain
    from mindagent.dispatch.dispatcher import DispatchSettings
    from mindagent.evaluation.checkpoint import UnitFailed
    from mindagent.evaluation.sweep import EvalConfig, run_tau

    level, steps, settings_ = MODES[mode]
    config = EvalConfig(levels=[level], agents=[2], model="fails-from", taus=[1.0], episodes=2, steps=steps,
                        dispatch=DispatchSettings(**settings_))

    def play(model: FailsFrom, checkpoint=None):
        return asyncio.run(run_tau(config, level, 2, 1.0, lambda: LLMBrain(model), checkpoint=checkpoint))

    whole = FailsFrom()
    unbroken = play(whole)
    assert whole.calls > 2

    @settings(max_examples=8, deadline=None)
    @given(at=st.integers(0, whole.calls - 1))
    def continued(at: int) -> None:
        with pytest.raises(UnitFailed) as failed:
            play(FailsFrom(at))
        checkpoint = failed.value.checkpoint
        assert (checkpoint is None) == (at == 0) and (checkpoint is None or len(checkpoint.answers) == at)
        rest = FailsFrom()
        result = play(rest, checkpoint)
        assert rest.calls == whole.calls - at and result.replayed_calls == at
        assert dataclasses.replace(result, replayed_calls=0) == unbroken

    continued()


def test_a_dry_run_on_a_stopped_sweep_counts_only_what_the_resume_will_ask(tmp_path: Path) -> None:
    """Two taus: one finished, one stopped at step 40 of 60. The dry run prices the 20 calls left
    (and no finished unit), and the resume then makes exactly those 20 calls."""
    outage, rest = RateLimitFrom(moves, healthy=100), RateLimitFrom(moves)
    out, record = tmp_path / "r.json", tmp_path / "rec"
    args = ["eval", "--levels", "level_1", "--agents", "2", "--taus", "1.0,2.0", "--episodes", "1", "--steps", "60",
            "--model", "openai:stub", "--out", str(out), "--retries", "2", "--max-retry-after", "0.01"]
    with stub_server(outage) as stub:
        broken = runner.invoke(app, [*args, "--base-url", stub.url, "--record", str(record)])
        assert broken.exit_code == 1 and outage.answered == 100
        fresh = runner.invoke(app, [*args, "--base-url", stub.url, "--dry-run", "--out", str(tmp_path / "none.json")])
        dry = runner.invoke(app, [*args, "--base-url", stub.url, "--dry-run"])
        assert dry.exit_code == 0, dry.output
        assert "1 of 2 units done, 1 to play (1 from a checkpoint: 40 steps answered" in dry.output
        calls = re.search(r"│\s*([\d,]+)\s*│", dry.output)
        assert calls and calls.group(1) == "20", dry.output
        assert "resuming" not in fresh.output and re.search(r"│\s*120\s*│", fresh.output), fresh.output
        stub.answer = rest
        resumed = runner.invoke(app, [*args, "--base-url", stub.url, "--record", str(record)])
        assert resumed.exit_code == 0, resumed.output
        assert rest.answered == 20


def test_a_dry_run_refuses_a_file_made_with_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with stub_server(RateLimitFrom(moves)) as stub:
        base = ["eval", "--levels", "level_1", "--agents", "2", "--episodes", "1", "--steps", "5", "--model",
                "openai:stub", "--base-url", stub.url, "--out", str(out)]
        assert runner.invoke(app, [*base, "--taus", "1.0"]).exit_code == 0
        dry = runner.invoke(app, [*base, "--taus", "2.0", "--dry-run"])
    assert dry.exit_code == 2 and "taus" in dry.output and "refusing to mix" in dry.output
