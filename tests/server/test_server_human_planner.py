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
