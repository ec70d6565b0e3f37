"""RL action masks on forced-collaboration levels: exactly the actions the engine accepts, so an
agent is never offered a station out of its reach and can take what a teammate left on a counter."""

from __future__ import annotations

import numpy as np
import pytest

from cuisineworld import Code, World, load_level
from cuisineworld.adapter.planners import CuisinePlanner
from cuisineworld.adapter.rl.actions import ActionTable


@pytest.mark.parametrize("rules", ["reference", "fixed"])
@pytest.mark.parametrize(("level", "agents"), [("pass_sushi", 2), ("relay_sashimi", 3), ("secret_salad", 4)])
def test_masks_are_exactly_the_accepted_actions(level: str, rules: str, agents: int):
    compiled = load_level(level, rules)
    table = ActionTable(compiled, agents)
    world = World(compiled, n_agents=agents, tau=2.0, seed=3)
    world.reset()
    planner = CuisinePlanner(lookahead_team=0)
    profiles = compiled.team_profiles(agents)
    assert profiles is not None
    counter_gets = 0
    for _ in range(40):  # the planner's play reaches hand-offs; masks are checked at every state
        masks = table.masks(world)
        for a in range(agents):
            for i in range(table.size):
                command = table.command(a, i)
                outcome = world.check([command])[0]
                assert bool(masks[a, i]) == outcome.ok, (command, outcome.reason)
                if outcome.reason is not None and outcome.reason.code is Code.CANNOT_REACH:
                    assert command.split("_")[-1] not in profiles[a].reach
            counter_gets += sum(1 for i in np.flatnonzero(masks[a])
                                if table.command(a, int(i)).startswith("get_") and "counter" in table.command(a, int(i)))
        world.step(planner.act_world(world))
    assert counter_gets > 0
