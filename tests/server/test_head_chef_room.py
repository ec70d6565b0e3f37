"""The head chef is answered and obeyed in a room, whoever dispatches (issue 26).

The slow tests play the README's default room (`mindagent serve --domain cuisineworld --agents 4`:
the server's default model, the embedded SmolLM2-135M, in goal mode) step by step: ``stop`` idles
every agent at the next step, ``no salmonSushi`` keeps salmonSushi out of the next 20 steps (and
the same room without the line does make it, so the check can fail), an unreadable line gets a
reply. The fast ones put a model that ignores the head chef's words (it answers with the
planner's commands for the whole kitchen) in per-step dispatch: its commands are held, and the
replies say which and why.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedModel

from cuisineworld.adapter.planners import CuisinePlanner
from mindagent.core import registry as domains
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, LLMBrain, PolicyBrain, default_model, make_brain
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.server.room import Room, RoomSettings

pytestmark = pytest.mark.asyncio


class Member:
    def __init__(self, name: str) -> None:
        self.name = name
        self.inbox: list[dict[str, Any]] = []

    def push(self, message: dict[str, Any]) -> None:
        self.inbox.append(message)

    def events(self) -> list[str]:
        return [m["text"] for m in self.inbox if m["type"] == "event"]


async def open_room(tmp_path: Path, brain: Brain, model: str, dispatch: DispatchSettings | None = None) -> Room:
    """A room as `mindagent serve --domain cuisineworld --agents 4` opens it (level, tau, seed)."""
    spec = domains.validate(GameSpec("cuisineworld", None, 4, 1.0, 0, "reference", None))
    settings = RoomSettings(spec, model, "test", "realtime", 1.0, dispatch=dispatch)
    room = Room("r", None, settings, domains.make_session(spec), brain, tmp_path / "rec")
    await room.open()
    room.start()
    return room


async def step(room: Room) -> dict[str, Any]:
    """One step once the dispatcher's decision (if it is thinking) is in, as a patient clock would."""
    for _ in range(600):
        if not room.decisions.thinking:
            break
        await asyncio.sleep(0.05)
    await room.step()
    assert room.last_step is not None
    return room.last_step


def made(room: Room, record: dict[str, Any], before: dict[str, list[str]]) -> list[str]:
    """What this step's accepted activations cooked, and what it served."""
    world = room.session.world  # type: ignore[attr-defined]
    out = list(record["completed"])
    for action in record["actions"]:
        if action["ok"] and action["command"].startswith("activate"):
            place = action["command"].split("_")[-1]
            out += [i for i in world.location_content(place) if i not in before.get(place, [])]
    return out


def contents(room: Room) -> dict[str, list[str]]:
    world = room.session.world  # type: ignore[attr-defined]
    return {loc.name: list(world.location_content(loc.name)) for loc in world.level.locations}


async def play(room: Room, steps: int) -> list[str]:
    cooked: list[str] = []
    for _ in range(steps):
        before = contents(room)
        cooked += made(room, await step(room), before)
    return cooked


def default_brain() -> tuple[Brain, str]:
    model, _ = default_model()
    if model != "local":
        pytest.skip(f"the default room's model here is {model!r}, not the embedded one")
    return make_brain(model, domains.get("cuisineworld"), seed=0), model


@pytest.mark.slow
async def test_default_room_stop_idles_every_agent_within_one_step(tmp_path: Path, smollm2_path: Path) -> None:
    brain, model = default_brain()
    room = await open_room(tmp_path, brain, model)
    assert room.dispatcher.dispatch.mode == "goals" and isinstance(room.dispatcher.brain, LLMBrain)
    chef = Member("chef")
    room.join(chef, "head_chef")
    busy = [await step(room) for _ in range(6)]
    assert any(not a["wait"] for record in busy for a in record["actions"])
    room.instruct(chef, "stop")
    for _ in range(5):
        record = await step(room)
        assert all(a["wait"] and a["ok"] for a in record["actions"]), record["actions"]
    room.instruct(chef, "go on")
    resumed = [await step(room) for _ in range(3)]
    assert any(not a["wait"] for record in resumed for a in record["actions"])
    assert any(e.startswith("head chef: stop (dispatcher: Understood: every agent waits (stop).") for e in chef.events())
    await room.close()


@pytest.mark.slow
async def test_default_room_no_salmon_sushi_keeps_it_out_for_twenty_steps(tmp_path: Path, smollm2_path: Path) -> None:
    async def cooked_after(line: str | None) -> list[str]:
        brain, model = default_brain()
        room = await open_room(tmp_path / (line or "none").replace(" ", "_"), brain, model)
        chef = Member("chef")
        room.join(chef, "head_chef")
        await play(room, 4)
        if line is not None:
            room.instruct(chef, line)
        out = await play(room, 20)
        await room.close()
        return out

    told = await cooked_after("no salmonSushi")
    assert "salmonSushi" not in told and "tunaSushi" in told, told
    assert "salmonSushi" in await cooked_after(None)  # the same room untold does make it


@pytest.mark.slow
async def test_default_room_answers_an_unreadable_line(tmp_path: Path, smollm2_path: Path) -> None:
    brain, model = default_brain()
    room = await open_room(tmp_path, brain, model)
    chef = Member("chef")
    room.join(chef, "head_chef")
    room.instruct(chef, "could you all dance a little")
    reply = 'dispatcher: Cannot follow "could you all dance a little": the words understood are make X, only X, no X, '
    assert any(reply in e for e in chef.events()), chef.events()
    entry = room.state()["head_chef"][-1]
    assert entry["understood"] is False and entry["reply"].startswith("Cannot follow")
    assert "held to them" in room.state()["dispatcher"]["reads"]
    await step(room)
    await room.close()


def deaf_model(room_box: list[Room]) -> ScriptedModel:
    """A model that ignores the head chef: it answers with the planner's commands for the whole kitchen."""
    planner = CuisinePlanner(lookahead_team=0)
    return ScriptedModel(lambda n, messages: "\n".join(planner.act_world(room_box[0].session.world)))  # type: ignore[attr-defined]


async def test_a_deaf_model_is_held_to_no_and_told_why(tmp_path: Path) -> None:
    box: list[Room] = []
    model = deaf_model(box)
    room = await open_room(tmp_path, LLMBrain(model), "scripted", DispatchSettings("step"))
    box.append(room)
    chef = Member("chef")
    room.join(chef, "head_chef")
    room.instruct(chef, "no salmonSushi")
    cooked = await play(room, 30)
    assert "salmonSushi" not in cooked and "tunaSushi" in cooked, cooked
    held = [e for e in chef.events() if "was not sent (it makes salmonSushi, which an instruction rules out)" in e]
    assert held, chef.events()
    prompt = model.sent[-1][-1].content
    assert "Standing orders (a command that breaks one is not carried out; that agent waits):\n- never make salmonSushi" \
        in prompt
    await room.close()


async def test_a_deaf_model_waits_under_stop_and_an_agent_keeps_to_its_dish(tmp_path: Path) -> None:
    box: list[Room] = []
    room = await open_room(tmp_path, LLMBrain(deaf_model(box)), "scripted", DispatchSettings("step"))
    box.append(room)
    chef = Member("chef")
    room.join(chef, "head_chef")
    await play(room, 3)
    room.instruct(chef, "stop")
    record = await step(room)
    assert all(a["wait"] for a in record["actions"]) and any("the instruction is stop" in e for e in chef.events())
    room.instruct(chef, "agent1 do tunaSushi")
    for _ in range(25):
        before = contents(room)
        record = await step(room)
        mine = [a for a in record["actions"] if a["agent"] == 1]
        assert "salmonSushi" not in made(room, {**record, "actions": mine, "completed": []}, before)
    await room.close()


async def test_the_planner_room_answers_each_line_once(tmp_path: Path) -> None:
    room = await open_room(tmp_path, PolicyBrain(CuisinePlanner()), "planner")
    chef = Member("chef")
    room.join(chef, "head_chef")
    room.instruct(chef, "dance")
    room.instruct(chef, "stop")
    for _ in range(3):
        record = await step(room)
        assert all(a["wait"] for a in record["actions"])
    answers = [e for e in chef.events() if 'Cannot follow "dance"' in e]
    assert len(answers) == 1 and answers[0].startswith("head chef: dance (dispatcher: "), chef.events()
    assert room.state()["dispatcher"]["reads"].startswith("The built-in team follows")
    await room.close()
