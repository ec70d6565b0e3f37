"""The shipped demos are episodes of the current engine: replaying their commands reproduces
every state they show. When the state format changes this fails: run `mindagent demo make`."""

from __future__ import annotations

import pytest

from cuisineworld import World, load_level
from cuisineworld.adapter.demo_maker import DEMO_SEED, DEMO_TAU
from cuisineworld.demos import DEMO_AGENT_COUNTS, demo_level_path, load_demo
from cuisineworld.feedback import step_lines


@pytest.mark.parametrize("agents", DEMO_AGENT_COUNTS)
def test_demo_states_match_the_engine(agents):
    demo = load_demo(agents)
    assert demo.agents == agents and demo.dish == "porkMeatcake"
    world = World(load_level(demo_level_path()), n_agents=agents, tau=DEMO_TAU, seed=DEMO_SEED)
    world.reset()
    feedback: list[str] = []
    for step in demo.steps:
        assert world.state_text() == step.state
        assert step.feedback == feedback
        result = world.step(step.commands)
        assert all(o.ok for o in result.outcomes), "a demo shows only commands that work"
        feedback = step_lines(result)
    assert world.counts.completed >= 1, "a demo ends with a served dish"


def test_demo_dish_is_in_no_shipped_level():
    from cuisineworld.levels import level_names

    for name in level_names():
        assert "porkMeatcake" not in load_level(name).dishes


def test_few_step_demo_has_two_steps():
    assert len(load_demo(2).few_step().steps) == 2
