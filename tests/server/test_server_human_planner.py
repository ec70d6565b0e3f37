"""The planner in a room with a person: it plans around the person's agent and the engine refuses
none of its own commands, whatever the person does (here a seeded random player), on every level."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from cuisineworld import load_level
from cuisineworld.adapter.planners import CuisinePlanner
from cuisineworld.levels.loader import level_names
from mindagent.dispatch.brains import PolicyBrain
from mindagent.server.room import Room

pytestmark = pytest.mark.asyncio


async def _ready(room: Room) -> None:
    for _ in range(50):
        if room._ready is not None:  # the planner answered (at once; it is a task of the loop)
            return
        await asyncio.sleep(0)


@pytest.mark.parametrize("level", level_names())
async def test_planner_with_one_human_agent_issues_no_refused_command(level: str, make_room: Callable[..., Awaitable[Room]],
                                                                      member: Callable[[str], Any]) -> None:
    room = await make_room(PolicyBrain(CuisinePlanner()), agents=2, level=level, steps=60)
    person = member("person")
    room.join(person, "player", 0)
    rng = random.Random(level)
    refused: list[dict[str, Any]] = []
    served = 0
    while room.status == "running":
        await _ready(room)
        legal = room.session.legal_commands(0)
        room.queue_command(person, rng.choice(legal))
        assert await room.step()
        last = room.state()["last_step"]
        refused += [a for a in last["actions"] if a["by"] == "dispatcher" and not a["ok"]]
        served += len(last["completed"])
    assert room.session.step_index == 60 and room.status == "finished"
    assert refused == []
    if load_level(level).team_profiles(2) is None:
        assert served >= 1  # the planner's agent still cooks with a stranger in the kitchen
    # (on a forced-collaboration level the person's agent holds the only way to the storage or the
    # serving table, so a random person can starve the planner's agent: nothing to assert there)
    await room.close()



async def test_a_built_in_team_decides_at_the_step_knowing_the_persons_command(
        make_room: Callable[..., Awaitable[Room]], member: Callable[[str], Any]) -> None:
    """The room tells a built-in policy the person's queued command before it decides, and runs
    the person's command first: a teammate that would take the same thing takes it second."""
    seen: list[list[str]] = []

    class Racer:  # takes rice from the storage with agent1, as the person's agent0 does
        name = "racer"

        def reset(self, session: Any) -> None: ...

        def act(self, session: Any) -> list[str]:
            return self.act_for(session, [0, 1])

        def act_for(self, session: Any, controlled: list[int]) -> list[str]:
            seen.append(session.people_commands())
            return ["get_agent1_rice_storage0" if session.world.agent_location(1) == "storage0" else "goto_agent1_storage0"]

    room = await make_room(PolicyBrain(Racer()), agents=2, level="level_3", steps=60)
    person = member("person")
    room.join(person, "player", 0)
    room.queue_command(person, "goto_agent0_storage0")
    assert await room.step()
    room.queue_command(person, "get_agent0_rice_storage0")
    assert await room.step()
    assert seen[-2:] == [["goto_agent0_storage0"], ["get_agent0_rice_storage0"]]
    actions = room.state()["last_step"]["actions"]
    assert [(a["by"], a["command"], a["ok"]) for a in actions] == [
        ("human", "get_agent0_rice_storage0", True), ("dispatcher", "get_agent1_rice_storage0", True)]
    assert room.session.people_commands() == []  # cleared after the decision
    await room.close()
