"""A room in goal mode and plan mode: the standing plan acts every tick while the model thinks,
and a decision that exceeds the room's decision timeout (from `--timeout`) is abandoned."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedModel

from mindagent.core import registry as domains
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import LLMBrain
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.dispatch.rules import RuleBrain
from mindagent.llm.base import Completion, GenerationConfig, Message
from mindagent.server.room import Room, RoomSettings


class GatedModel(ScriptedModel):
    """Answers the first call at once; later calls wait until the test opens the gate."""

    def __init__(self, answer: object) -> None:
        super().__init__(answer)  # type: ignore[arg-type]
        self.gate = asyncio.Event()

    async def complete(self, messages: Sequence[Message], config: GenerationConfig,
                       grammar: str | None = None) -> Completion:
        if self.sent:
            await self.gate.wait()
        return await super().complete(messages, config, grammar)


def first_dish(n: int, messages: Sequence[Message]) -> str:
    found = re.search(r"Choose from: ([A-Za-z]+)", messages[-1].content)
    return f"goal: {found[1] if found else 'none'}"


async def open_room(tmp_path: Path, model: ScriptedModel, dispatch: DispatchSettings | None,
                    decision_timeout: float = 60.0) -> Room:
    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
    settings = RoomSettings(spec, "scripted", "test", "realtime", 0.05, decision_timeout=decision_timeout,
                            dispatch=dispatch)
    room = Room("r", None, settings, domains.make_session(spec), LLMBrain(model), tmp_path / "rec")
    await room.open()
    room.start()
    return room


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_goal_mode_acts_on_every_tick_while_the_model_thinks(tmp_path: Path) -> None:
    model = GatedModel(first_dish)
    room = await open_room(tmp_path, model, DispatchSettings("goals", goal_every=2))
    await settle()
    acted = 0
    for _ in range(30):
        await room.step()
        actions = room.state()["last_step"]["actions"]
        acted += all(not a["idle"] for a in actions)
        await settle()
    # the gate stays shut: later goal calls never return, yet the first goals keep the cooks busy
    assert acted == 30
    assert room.dispatcher_info()["thinking"] or len(model.sent) == 1
    await room.close()


@pytest.mark.asyncio
async def test_plan_mode_in_a_room_records_plan_and_position(tmp_path: Path) -> None:
    model = GatedModel(["goto_agent0_storage0\ngoto_agent1_storage0\n---\nnoop_agent0\nnoop_agent1"])
    room = await open_room(tmp_path, model, DispatchSettings("plan", plan_steps=2))
    await settle()
    for _ in range(3):
        await room.step()
        await settle()
    await room.close()
    lines = (tmp_path / "rec").glob("*.jsonl")
    import json

    steps = [json.loads(x) for f in lines for x in f.read_text().splitlines()]
    steps = [s for s in steps if s.get("type") == "step"]
    assert [s["plan"]["position"] for s in steps[:2]] == [1, 2]
    assert steps[0]["commands"] == ["goto_agent0_storage0", "goto_agent1_storage0"]
    assert steps[2]["commands"] == ["noop_agent0", "noop_agent1"]  # exhausted: idle while it asks again


@pytest.mark.asyncio
async def test_a_decision_past_the_room_timeout_is_a_room_error(tmp_path: Path) -> None:
    model = GatedModel(["noop_agent0\nnoop_agent1"])
    model.sent.append([])  # make even the first call wait at the gate
    room = await open_room(tmp_path, model, DispatchSettings("step"), decision_timeout=0.2)
    await asyncio.sleep(0.5)
    assert any("TimeoutError" in e for e in room.errors)
    await room.close()


@pytest.mark.asyncio
async def test_a_room_with_the_model_executor_falls_back_to_the_rule_for_a_built_in_policy(tmp_path: Path) -> None:
    """The model executor needs a language model; a room switched to the planner keeps playing
    the task graph with the rule executor."""
    from mindagent.dispatch.brains import make_brain

    model = ScriptedModel(["agent0: o0.cookedRice\nagent1: o0.tunaSashimi", "goto_agent0_storage0",
                           "goto_agent1_storage0"])
    room = await open_room(tmp_path, model, DispatchSettings(team="taskgraph", executor="model"))
    assert room.dispatcher.dispatch.executor == "model" and not room.dispatcher.plans
    room.set_brain(make_brain("planner", domains.get("cuisineworld")), "planner", "test")
    assert room.dispatcher.dispatch.executor == "rule" and room.dispatcher.plans
    for _ in range(6):
        await settle()
        await room.step()
    assert room.session.step_index == 6
    assert any(not a["idle"] for a in room.state()["last_step"]["actions"])
    await room.close()


@pytest.mark.asyncio
async def test_the_model_executor_reassigns_when_a_person_takes_an_agent(tmp_path: Path, member: Any) -> None:
    def answer(n: int, messages: Sequence[Message]) -> str:
        content = messages[-1].content
        if "Ready subtasks" in content:
            ready = re.findall(r"^- (o\d+\.\w+):", content, re.MULTILINE)
            agents = re.search(r"^Agents: (.+)$", content, re.MULTILINE)
            return "\n".join(f"{a}: {ready[0]}" for a in agents[1].split(", ")) if agents else ""
        me = re.search(r"You are (agent\d)", content)
        return f"goto_{me[1]}_storage0" if me else ""

    model = ScriptedModel(answer)
    room = await open_room(tmp_path, model, DispatchSettings(team="taskgraph", executor="model"))
    for _ in range(2):
        await settle()
        await room.step()
    assert "Agents: agent0, agent1" in model.sent[0][-1].content
    person = member("person")
    room.join(person, "player", 1)
    asked = len(model.sent)
    for _ in range(3):
        await settle()
        room.queue_command(person, "noop_agent1")
        await room.step()
        await settle()
    later = [m[-1].content for m in model.sent[asked:]]
    assert any("Agents: agent0\n" in c or c.endswith("Agents: agent0") for c in later)  # assigned again, without agent1
    assert not any("You are agent1" in c for c in later[1:])  # the person's agent is no longer executed
    actions = room.state()["last_step"]["actions"]
    assert actions[1]["by"] == "human" and actions[0]["by"] == "dispatcher"
    await room.close()


@pytest.mark.asyncio
async def test_a_room_says_which_agent_steps_came_from_the_model_and_which_from_the_executor(tmp_path: Path) -> None:
    """Goal mode: the model picks dishes, the executor writes every command; the state and the
    results say so (the page shows the results line)."""
    model = ScriptedModel(first_dish)
    room = await open_room(tmp_path, model, DispatchSettings("goals", goal_every=2))
    await settle()
    steps = 0
    while steps < 40 and (steps < 12 or not room.state()["sources"]["answers"]):  # a model answer is counted
        await room.step()  # with the first step its plan acts at
        await settle()
        steps += 1
        assert {a["source"] for a in room.state()["last_step"]["actions"]} <= {"executor", "idle"}
    sources = room.state()["sources"]
    assert sources["agent_steps"]["model"] == 0 and sources["agent_steps"]["executor"] > 0
    assert sum(sources["agent_steps"].values()) == 2 * steps and sources["chooser"] == "model"
    assert 1 <= sources["answers"] <= len(model.sent)
    assert sources["line"].startswith(f"Commands of {2 * steps} agent-steps:") and "from the executor" in sources["line"]
    await room.close()


@pytest.mark.asyncio
async def test_a_rule_chooser_room_plays_goal_mode_by_default(tmp_path: Path) -> None:
    spec = domains.validate(GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
    settings = RoomSettings(spec, "rule:urgent", "test", "realtime", 0.05)
    room = Room("r", None, settings, domains.make_session(spec), RuleBrain("urgent"), tmp_path / "rec")
    await room.open()
    room.start()
    await settle()
    for _ in range(20):
        await room.step()
        await settle()
    sources = room.state()["sources"]
    assert room.dispatcher.dispatch.mode == "goals" and sources["chooser"] == "rule:urgent"
    assert sources["answers"] >= 1 and "the rule:urgent answered" in sources["line"]
    await room.close()


@pytest.mark.asyncio
async def test_a_central_model_room_counts_the_models_own_commands(tmp_path: Path) -> None:
    model = ScriptedModel(["noop_agent0\nnoop_agent1"])
    room = await open_room(tmp_path, model, None)
    for _ in range(4):
        await settle()
        await room.step()
    sources = room.state()["sources"]
    assert sources["agent_steps"]["executor"] == 0 and sources["agent_steps"]["model"] > 0
    assert sources["agent_steps"]["model"] + sources["agent_steps"]["idle"] == 8
    await room.close()
