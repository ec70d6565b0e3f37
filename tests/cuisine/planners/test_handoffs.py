"""The scheduler on forced-collaboration levels: it hands items over on counters, never issues a
refused command, completes orders with every team size, and stays under the reach-aware bound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuisineworld import World, load_level
from cuisineworld.adapter.planners import CuisinePlanner, make_policy
from cuisineworld.adapter.planners.evaluate import run_cell
from cuisineworld.adapter.planners.upper_bound import upper_bound

LEVELS = Path(__file__).parents[3] / "cuisineworld/levels/data/levels"


def _play(level: str, rules: str, agents: int, tau: float = 2.0, seed: int = 0) -> tuple[World, CuisinePlanner, list[str]]:
    planner = CuisinePlanner()
    world = World(load_level(level, rules), n_agents=agents, tau=tau, seed=seed)
    world.reset()
    done: list[str] = []
    while not world.done:
        result = world.step(planner.act_world(world))
        assert all(o.ok for o in result.outcomes), [o for o in result.outcomes if not o.ok]
        done += [o.command for o in result.outcomes if o.ok]
    return world, planner, done


@pytest.mark.parametrize("rules", ["reference", "fixed"])
@pytest.mark.parametrize(("level", "agents"), [
    ("pass_sushi", 2), ("pass_sushi", 4), ("relay_sashimi", 2), ("relay_sashimi", 3), ("secret_salad", 2),
    ("secret_salad", 3)])
def test_the_planner_completes_orders_by_handing_items_over(level: str, rules: str, agents: int):
    world, planner, done = _play(level, rules, agents)
    assert world.counts.completed >= 2
    assert planner.stats["repaired"] == 0
    handoffs = [c for c in done if c.startswith("put_") and "_counter" in c]
    taken = [c for c in done if c.startswith("get_") and "_counter" in c]
    assert handoffs and len(taken) >= len(handoffs) - 2  # what is left on the counters is picked up


def test_no_agent_is_ever_sent_out_of_reach():
    world, _, done = _play("relay_sashimi", "reference", 3, tau=1.5, seed=4)
    profiles = world.level.team_profiles(3)
    assert profiles is not None
    for command in done:
        parts = command.split("_")
        if parts[0] != "noop":
            assert parts[-1] in profiles[int(parts[1][5:])].reach, command


def test_a_homogeneous_copy_of_a_split_kitchen_needs_no_counter(tmp_path: Path):
    raw = json.loads((LEVELS / "pass_sushi.json").read_text())
    del raw["agents"]
    path = tmp_path / "open_kitchen.json"
    path.write_text(json.dumps(raw))
    planner = CuisinePlanner()
    world = World(load_level(path), n_agents=2, tau=2.0, seed=0)
    world.reset()
    while not world.done:
        commands = planner.act_world(world)
        assert not any("_counter" in c for c in commands)
        world.step(commands)
    assert world.counts.completed >= 2


def test_reach_lowers_the_bound(tmp_path: Path):
    """The same kitchen and dishes without profiles: no hand-off to pay for, a higher bound."""
    raw = json.loads((LEVELS / "pass_sushi.json").read_text())
    del raw["agents"]
    path = tmp_path / "open_kitchen.json"
    path.write_text(json.dumps(raw))
    assert upper_bound("pass_sushi", 2).cos < upper_bound(load_level(path), 2).cos


@pytest.mark.slow  # the paper's protocol (5 taus x 3 episodes) per cell
@pytest.mark.parametrize("rules", ["reference", "fixed"])
@pytest.mark.parametrize("level", ["pass_sushi", "relay_sashimi", "secret_salad"])
def test_planner_cos_stays_under_the_reach_aware_bound(level: str, rules: str):
    for agents in (2, 3):
        cell = run_cell(make_policy("planner"), level, agents, rules=rules)
        assert 0 < cell.cos <= upper_bound(level, agents, rules=rules).cos + 1e-9
        assert cell.refused == 0
