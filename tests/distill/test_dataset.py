"""`mindagent distill`: a planner sweep's recordings become pairs whose prompts are what the
dispatcher sends a model and whose answers parse back into exactly the recorded commands."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fakes import ScriptedModel
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.core import registry as domains
from mindagent.core.episode import run_episode
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import PromptConfig
from mindagent.distill.dataset import split_episodes
from mindagent.distill.records import ChatPair, PromptPair, read_pair
from mindagent.recordings.recording import read_recording

runner = CliRunner()
STEPS = 6


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small planner sweep: 2 episodes of level_1 and 1 of level_3, 6 steps each, recorded."""
    folder = tmp_path_factory.mktemp("sweep")
    for level, episodes in (("level_1", "2"), ("level_3", "1")):
        result = runner.invoke(app, ["eval", "--levels", level, "--agents", "2", "--episodes", episodes, "--taus", "1.0",
                                     "--steps", str(STEPS), "--model", "planner", "--record", str(folder / "rec"),
                                     "--out", str(folder / f"{level}.json")])
        assert result.exit_code == 0, result.output
    return folder / "rec"


def distill(recordings: Path, out: Path, *extra: str) -> list[ChatPair | PromptPair]:
    result = runner.invoke(app, ["distill", "--recordings", str(recordings), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return [read_pair(line) for line in out.read_text().splitlines()]


def recorded_steps(path: Path) -> dict[int, list[str]]:
    return {r["step"]: r["commands"] for r in read_recording(path) if r["type"] == "step"}


def test_every_answer_parses_back_into_the_recorded_commands(sweep: Path, tmp_path: Path) -> None:
    pairs = distill(sweep, tmp_path / "data.jsonl", "--keep-idle", "--no-dedup", "--validation", "0")
    assert len(pairs) == 3 * STEPS
    session = domains.make_session(domains.validate(GameSpec(domain="cuisineworld", level="level_1", agents=2)))
    for pair in pairs:
        assert isinstance(pair, ChatPair)
        target = pair.messages[-1]
        assert target.role == "assistant"
        commands = recorded_steps(sweep / pair.meta.source)[pair.meta.step]
        assert commands and session.extract_commands(target.content) == commands


def test_every_prompt_is_what_the_dispatcher_sends_a_model(sweep: Path, tmp_path: Path) -> None:
    """A scripted model answering with the distilled answers replays the planner's episode through
    the model path; what the dispatcher sent it at each step is the distilled prompt."""
    pairs = distill(sweep, tmp_path / "data.jsonl", "--keep-idle", "--no-dedup", "--validation", "0",
                    "--format", "prompt")
    source = "level_3_2a_tau1.0_s0_e1_planner.jsonl"
    mine = sorted((p for p in pairs if p.meta.source == source), key=lambda p: p.meta.step)
    assert isinstance(mine[0], PromptPair) and len(mine) == STEPS
    header = read_recording(sweep / source)[0]
    model = ScriptedModel([p.completion[0].content for p in mine if isinstance(p, PromptPair)])

    async def play() -> list[str]:
        session = domains.make_session(domains.validate(GameSpec.from_header(header, "cuisineworld")))
        await session.reset(seed=header["seed"])
        dispatcher = Dispatcher.for_session(session, LLMBrain(model), PromptConfig())
        await run_episode(session, dispatcher, steps=STEPS)
        return session.state_text()

    asyncio.run(play())
    assert len(model.sent) == STEPS
    for pair, sent in zip(mine, model.sent, strict=True):
        assert isinstance(pair, PromptPair)
        assert [(m.role, m.content) for m in pair.prompt] == [(m.role, m.content) for m in sent]


def test_options_idle_dedup_split_and_demo(sweep: Path, tmp_path: Path) -> None:
    kept = distill(sweep, tmp_path / "all.jsonl", "--keep-idle", "--no-dedup", "--validation", "0")
    dropped = distill(sweep, tmp_path / "d.jsonl", "--validation", "0")
    report = json.loads((tmp_path / "d.report.json").read_text())
    assert len(dropped) == len(kept) - report["idle_dropped"] - report["duplicates_dropped"]
    keys = [json.dumps([m.model_dump() for m in p.messages]) for p in dropped if isinstance(p, ChatPair)]
    assert len(keys) == len(set(keys))
    # a split by whole episodes, the same for the same seed
    first = distill(sweep, tmp_path / "s.jsonl", "--validation", "0.34", "--seed", "3")
    held = [read_pair(line) for line in (tmp_path / "s.val.jsonl").read_text().splitlines()]
    train_sources = {p.meta.source for p in first}
    held_sources = {p.meta.source for p in held}
    assert held_sources and train_sources and not train_sources & held_sources
    assert all(p.meta.split == "validation" for p in held)
    again = distill(sweep, tmp_path / "s2.jsonl", "--validation", "0.34", "--seed", "3")
    assert (tmp_path / "s.jsonl").read_text() == (tmp_path / "s2.jsonl").read_text() and len(again) == len(first)
    # no demo: the prompt is the system text and the turns only, and shorter
    short = distill(sweep, tmp_path / "n.jsonl", "--validation", "0", "--demo", "none", "--memory", "0")
    assert all(isinstance(p, ChatPair) and [m.role for m in p.messages] == ["system", "user", "assistant"]
               for p in short)


def test_malformed_recordings_are_refused_one_line_each_and_the_rest_used(sweep: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    good = sweep / "level_1_2a_tau1.0_s0_e1_planner.jsonl"
    (folder / "good.jsonl").write_text(good.read_text())
    (folder / "garbage.jsonl").write_text("not json at all\n{}\n")
    lines = good.read_text().splitlines()
    step = json.loads(lines[2])
    step["commands"] = ["goto_agent0_servingtable0", "noop_agent1"]  # the game then diverges from the file
    (folder / "diverged.jsonl").write_text("\n".join([*lines[:2], json.dumps(step), *lines[3:]]) + "\n")
    result = runner.invoke(app, ["distill", "--recordings", str(folder), "--out", str(tmp_path / "m.jsonl")])
    assert result.exit_code == 0, result.output
    refused = [line for line in result.output.splitlines() if line.startswith("refused ")]
    assert sorted(line.split(":")[0] for line in refused) == ["refused diverged.jsonl", "refused garbage.jsonl"]
    report = json.loads((tmp_path / "m.report.json").read_text())
    assert (report["recordings"], report["used"], len(report["refused"])) == (3, 1, 2)
    assert report["train_pairs"] > 0


def test_nothing_usable_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text("[1, 2]\n")
    result = runner.invoke(app, ["distill", "--recordings", str(tmp_path), "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 1 and "no recording gave any pair" in result.output
    missing = runner.invoke(app, ["distill", "--recordings", str(tmp_path / "nope"), "--out", str(tmp_path / "o.jsonl")])
    assert missing.exit_code == 2 and "no such folder" in missing.output


def test_split_holds_out_whole_episodes_deterministically() -> None:
    sources = [f"e{k}.jsonl" for k in range(10)]
    held = split_episodes(sources, 0.2, seed=5)
    assert len(held) == 2 and held == split_episodes(list(reversed(sources)), 0.2, seed=5)
    assert split_episodes(sources, 0.0, 1) == set() and split_episodes(["one"], 0.5, 1) == set()
    assert len(split_episodes(sources[:2], 0.9, 0)) == 1  # always leaves something to train on
