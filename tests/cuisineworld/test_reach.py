"""Heterogeneous teams: per-agent reach, the counter hand-off, and level-file checks of profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuisineworld import Code, LevelFileError, World, load_level
from cuisineworld.feedback import describe

HANDOFF_LEVELS = ["pass_sushi", "relay_sashimi", "secret_salad"]
RULES = ["reference", "fixed"]


def world_of(level: str, n: int = 2, rules: str = "reference") -> World:
    world = World(load_level(level, rules=rules), n_agents=n, tau=2.0, seed=1)
    world.reset()
    return world


@pytest.mark.parametrize("rules", RULES)
def test_every_verb_at_an_unreachable_place_is_refused_as_cannot_reach(rules):
    world = world_of("pass_sushi", rules=rules)
    assert world.agent_location(0) == "storage0" and world.agent_location(1) == "servingtable0"
    for command in ("goto_agent0_pot0", "get_agent0_pot0", "put_agent0_servingtable0", "activate_agent0_mixer1",
                    "goto_agent1_storage0", "get_agent1_rice_storage0", "activate_agent1_chopboard0"):
        outcome = world.check([command])[0]
        assert not outcome.ok and outcome.reason is not None
        assert outcome.reason.code is Code.CANNOT_REACH, command
    sentence = describe(world.check(["goto_agent1_storage0"])[0].reason)  # type: ignore[arg-type]
    assert sentence.startswith("agent1 cannot reach storage0")
    assert not any(c.endswith(("_pot0", "_servingtable0")) for c in world.legal_commands(0))


@pytest.mark.parametrize("rules", RULES)
def test_an_item_crosses_the_pass_on_a_counter(rules):
    world = world_of("pass_sushi", rules=rules)
    steps = [["get_agent0_rice_storage0", "goto_agent1_counter0"],
             ["goto_agent0_counter0", "noop_agent1"],
             ["put_agent0_counter0", "get_agent1_counter0"],  # same step: put first, then the get
             ["goto_agent0_storage0", "goto_agent1_pot0"],
             ["noop_agent0", "put_agent1_pot0"],
             ["noop_agent0", "activate_agent1_pot0"]]
    for joint in steps:
        result = world.step(joint)
        assert all(o.ok for o in result.outcomes), (joint, result.outcomes)
    assert world.location_content("pot0") == ["cookedRice"]
    assert world.location_content("counter0") == []


def test_a_counter_holds_one_item_and_gives_back_only_what_it_holds():
    world = world_of("pass_sushi", n=3)
    world.step(["get_agent0_rice_storage0", "noop_agent1", "get_agent2_salmon_storage0"])
    world.step(["goto_agent0_counter0", "noop_agent1", "goto_agent2_counter0"])
    result = world.step(["put_agent0_counter0", "noop_agent1", "put_agent2_counter0"])
    assert result.outcomes[0].ok
    assert result.outcomes[2].reason is not None and result.outcomes[2].reason.code is Code.LOCATION_FULL
    world.step(["noop_agent0", "goto_agent1_counter0", "noop_agent2"])
    assert world.check(["get_agent1_salmon_counter0"])[0].reason.code is Code.NOT_GETTABLE  # type: ignore[union-attr]
    assert world.check(["get_agent1_rice_counter0"])[0].ok
    assert "get_agent1_rice_counter0" in world.legal_commands(1)


def test_profiles_are_dealt_round_robin():
    level = load_level("relay_sashimi")
    three = level.team_profiles(3)
    assert three is not None and [sorted(p.reach) for p in three] == [
        ["counter0", "storage0"], ["chopboard0", "chopboard1", "counter0", "counter1"],
        ["counter1", "mixer0", "mixer1", "servingtable0"]]
    two = level.team_profiles(2)
    assert two is not None and two[0].reach == three[0].reach | three[2].reach and two[1] == three[1]
    four = level.team_profiles(4)
    assert four is not None and four[3] == three[0]
    assert load_level("level_3").team_profiles(2) is None


def test_knowledge_is_the_trees_of_the_known_products():
    level = load_level("secret_salad")
    profiles = level.team_profiles(2)
    assert profiles is not None
    assert level.known_recipes(profiles[0].knows) == ()
    told = {r.product for r in level.known_recipes(profiles[1].knows)}
    assert told == {r.product for r in level.recipes}


def _write(tmp_path: Path, **changes: object) -> Path:
    raw = json.loads((Path(__file__).parents[2] / "cuisineworld/levels/data/levels/pass_sushi.json").read_text())
    raw.update(changes)
    path = tmp_path / "lv.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.mark.parametrize(("changes", "field", "problem"), [
    ({"agents": [{"reach": ["storage", "chopboard"]}, {"reach": ["pot", "mixer", "servingtable"]}]},
     "agents", "no agent can reach counter0"),
    ({"agents": [{"reach": ["storage", "chopboard", "counter0"]}, {"reach": ["counter1", "pot", "mixer",
                                                                              "servingtable"]}]},
     "agents", "the team cannot make salmonSushi"),
    ({"agents": [{"reach": ["storage", "oven"]}]}, "agents.0.reach.1", "'oven' is no location"),
    ({"agents": [{"reach": []}]}, "agents.0.reach", "at least 1 item"),
    ({"agents": [{"reach": ["storage", "chopboard", "counter"], "knows": ["pizza"]},
                 {"reach": ["counter", "pot", "mixer", "servingtable"]}]}, "agents.0.knows.0", "no recipe makes"),
    ({"agents": [{"reach": ["storage", "chopboard", "counter"], "knows": []},
                 {"reach": ["counter", "pot", "mixer", "servingtable"], "knows": ["salmonSushi"]}]},
     "agents", "no agent knows the recipe of tunaSushi"),
])
def test_bad_profiles_get_one_line_naming_file_field_and_problem(tmp_path, changes, field, problem):
    path = _write(tmp_path, **changes)
    with pytest.raises(LevelFileError) as caught:
        load_level(path)
    error = caught.value
    assert error.file == str(path) and error.field == field and problem in error.problem
    assert "\n" not in str(error)


def _pool(world: World, a: int) -> list[str]:
    tag = f"agent{a}"
    out = [f"noop_{tag}"]
    for name in world.level.location_names:
        out += [f"goto_{tag}_{name}", f"get_{tag}_{name}", f"put_{tag}_{name}", f"activate_{tag}_{name}"]
    out += [f"get_{tag}_{b}_storage0" for b in ("rice", "salmon", "tuna", "tomato", "lettuce")]
    out += [f"get_{tag}_{b}_counter{i}" for b in ("rice", "salmon", "tunaSashimi") for i in (0, 1)]
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from(HANDOFF_LEVELS), rules=st.sampled_from(RULES), n=st.integers(1, 4),
       seed=st.integers(0, 1000), data=st.data())
def test_legal_commands_agree_with_what_succeeds_on_heterogeneous_levels(level, rules, n, seed, data):
    world = World(load_level(level, rules=rules), n_agents=n, tau=2.0, seed=seed)
    world.reset()
    for _ in range(20):
        for a in range(n):
            legal = world.legal_commands(a)
            for command in legal:
                assert world.check([command])[0].ok, command
            for command in _pool(world, a):
                outcome = world.check([command])[0]
                parts = command.split("_")
                if parts[0] != "noop" and not outcome.ok and outcome.reason is not None:
                    reach = world.level.team_profiles(n)
                    assert (outcome.reason.code is Code.CANNOT_REACH) == (
                        reach is not None and parts[-1] not in reach[a].reach), command
                if outcome.ok:
                    canonical = command
                    if parts[0] == "get" and len(parts) == 3 and not parts[2].startswith("storage"):
                        canonical = f"get_agent{a}_{world.location_content(parts[2])[0]}_{parts[2]}"
                    assert canonical in legal, (command, legal)
        world.step([data.draw(st.sampled_from(world.legal_commands(a))) for a in range(n)])
