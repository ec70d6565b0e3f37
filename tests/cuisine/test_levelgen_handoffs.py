"""`levels generate --handoffs` (issue 15): a generated kitchen split between two agent profiles
that can only pass items over counters, kept only when the planner serves orders on it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cuisineworld import World, load_level
from cuisineworld.adapter.levelgen import generate_level, level_json
from cuisineworld.adapter.planners import CuisinePlanner
from mindagent.cli import app


def test_a_generated_split_kitchen_is_played_with_hand_offs(tmp_path: Path):
    data = generate_level(seed=2, dishes=2, handoffs=True)
    assert data.level.agents is not None and len(data.level.agents) == 2
    assert data.level.kitchen.count("counter") == 2
    path = tmp_path / "split.json"
    path.write_text(level_json(data))
    level = load_level(path)
    world = World(level, n_agents=2, tau=3.0, seed=0)
    world.reset()
    planner = CuisinePlanner()
    passed = 0
    while not world.done:
        result = world.step(planner.act_world(world))
        passed += sum(1 for o in result.outcomes if o.ok and o.command.startswith("put_") and "counter" in o.command)
    assert world.counts.completed > 0 and passed > 0


def test_without_the_flag_the_generator_is_unchanged():
    plain = generate_level(seed=2, dishes=2)
    assert plain.level.agents is None and "counter" not in plain.level.kitchen
    assert "agents" not in json.loads(level_json(plain))  # no profiles (the calibration says its team size)


def test_the_cli_writes_the_split_level(tmp_path: Path):
    target = tmp_path / "h.json"
    result = CliRunner().invoke(app, ["levels", "generate", "--seed", "0", "--dishes", "2", "--handoffs",
                                      "--out", str(target)])
    assert result.exit_code == 0, result.output
    assert "planner CoS" in result.output
    assert load_level(target).team_profiles(2) is not None
