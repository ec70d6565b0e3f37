"""The team modes in a served room: a real server on a loopback port, a real websocket client.

Three agents; a person plays agent2 over the websocket, the room's dispatcher the others:
decentral (one model call per machine agent), the task graph with the model executor (a
manager call, then one executor call per machine agent) and `--control 1 --partners planner`
(the dispatcher commands agent0, the planner partner agent1). Each room must step, take its
commands from each source, and record the team mode in the episode's header.

A scripted model stands in for the language model where one is needed (the test is about the
room's loop, not about a model; real models play these modes in tests/mindagent/test_teams.py).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes import ScriptedModel

from mindagent.core import registry as domains
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, LLMBrain, make_brain
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.llm.base import Message
from mindagent.recordings.recording import read_recording
from mindagent.server import GameServer, ServerConfig

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


def answer(n: int, messages: Sequence[Message]) -> str:
    """Manager: the ready subtasks in order; an agent (decentral or executor): walk to the storage."""
    content = messages[-1].content
    if "Ready subtasks" in content:
        ready = re.findall(r"^- (o\d+\.\w+):", content, re.MULTILINE)
        agents = re.search(r"^Agents: (.+)$", content, re.MULTILINE)
        assert agents is not None
        return "\n".join(f"{a}: {ready[k % len(ready)]}" for k, a in enumerate(agents[1].split(", ")))
    me = re.search(r"You are (agent\d)", content)
    assert me is not None
    return f"goto_{me[1]}_storage0\nsay: {me[1]} is on its way"


CASES = {
    "decentral": (DispatchSettings(team="decentral"), "scripted"),
    "taskgraph-model-executor": (DispatchSettings(team="taskgraph", executor="model"), "scripted"),
    "control-planner-partner": (DispatchSettings(control=(0,), partners="planner"), "planner"),
}


@pytest_asyncio.fixture
async def server(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[GameServer]:
    """The conftest's server, with the case's team mode (`ServerConfig.dispatch`, as `serve --mode`
    and `--control` set it) and its dispatcher."""
    dispatch, model = CASES[request.param]

    def brain(_model: str, domain: str) -> Brain:
        if model == "planner":
            return make_brain("planner", domains.get(domain))
        return LLMBrain(ScriptedModel(answer))

    config = ServerConfig(port=0, model=model, model_why="the test's", tick=0.05, human_tick=None, countdown=0,
                          recordings=tmp_path / "rooms", dispatch=dispatch,
                          startup=GameSpec("cuisineworld", "level_3", 3, 1.0, 0, "reference", 500))
    srv = GameServer(config, brain_factory=brain)
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


def machine_acted(state: dict[str, Any]) -> bool:
    last = state.get("last_step")
    return bool(last) and all(a["by"] == "dispatcher" and not a["idle"] and a["ok"] for a in last["actions"][:2])


@pytest.mark.parametrize("server", list(CASES), indirect=True)
async def test_a_served_room_plays_each_team_mode_with_a_person(server: GameServer, client: Any,
                                                                request: pytest.FixtureRequest) -> None:
    case = request.node.callspec.params["server"]
    dispatch, _ = CASES[case]
    room = server.startup_room
    assert room is not None
    person = await client()
    joined = await person.request("join", room=room.id, role="player", agent=2)
    assert joined["type"] == "joined" and joined["agent"] == 2
    queued = await person.request("command", command="goto_agent2_pot0")
    assert queued["type"] == "queued"
    played = await person.next("state", lambda m: bool(m["last_step"]) and m["last_step"]["actions"][2]["by"] == "human"
                               and m["last_step"]["actions"][2]["command"] == "goto_agent2_pot0", timeout=20)
    assert played["last_step"]["actions"][2]["ok"]
    acted = await person.next("state", machine_acted, timeout=20)
    assert acted["controllers"] == ["dispatcher", "dispatcher", "human"]
    await person.next("state", lambda m: m["step"] >= acted["step"] + 3, timeout=20)

    path = room.log.path
    assert path is not None
    records = read_recording(path)
    assert records[0]["dispatch"] == dispatch.to_dict()
    steps = [r for r in records if r["type"] == "step"]
    assert len(steps) >= 4
    person_step = next(s for s in steps if "goto_agent2_pot0" in s["commands"])
    actors = next(r for r in records if r["type"] == "actors" and r["step"] == person_step["step"])
    assert actors["actors"][0] == "human"  # people's commands run first: the person wins every race
    asked = [s for s in steps if s["calls"]]
    if case == "decentral":
        # one call per machine agent (not the person's), each naming its agent; the messages are recorded
        assert asked and all(len(s["calls"]) == 2 for s in asked)
        for s in asked:
            assert [re.search(r"You are (agent\d)", c["messages"][-1]["content"])[1] for c in s["calls"]] == \
                ["agent0", "agent1"]
        assert any(s.get("said", {}).get("agent1") == "agent1 is on its way" for s in asked)
    elif case == "taskgraph-model-executor":
        plans = [s["plan"] for s in steps if "plan" in s]
        assert plans and all(p["kind"] == "taskgraph" and p["executor"] == "model" for p in plans)
        assert all(set(p["assignment"]) <= {"0", "1"} for p in plans)  # the person's agent gets no subtask
        executor_calls = [c for s in asked for c in s["calls"] if "Your subtask" in c["messages"][-1]["content"]]
        assert {re.search(r"You are (agent\d)", c["messages"][-1]["content"])[1] for c in executor_calls} == \
            {"agent0", "agent1"}
        assert any("goto_agent0_storage0" in s["commands"] for s in steps)
    else:
        # the planner partner plays agent1 (recorded apart), the dispatcher agent0, the person agent2
        partnered = [s for s in steps if s.get("partners")]
        assert partnered and all([room.session.agent_of(c) for c in s["partners"]] == [1] for s in partnered)
        assert all([c for c in s["commands"] if room.session.agent_of(c) == 1] == s["partners"] for s in partnered)
        assert any(any(room.session.agent_of(c) == 0 and not c.startswith("noop") for c in s["commands"])
                   for s in partnered)
