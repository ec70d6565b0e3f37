"""Every verb and every refusal reason, as tables of (setup commands, command, expected)."""

from __future__ import annotations

import pytest

from cuisineworld import Code, World


def run(world: World, *steps: list[str]) -> None:
    for commands in steps:
        result = world.step(commands)
        assert all(o.ok for o in result.outcomes), [(o.command, o.reason) for o in result.outcomes]


def verdict(world: World, command: str, other: str = "noop_agent1"):
    outcome = world.step([command, other]).outcomes[0]
    return outcome.ok, outcome.reason.code if outcome.reason else None


RICE_IN_POT = [["goto_agent0_storage0", "noop_agent1"], ["get_agent0_rice_storage0", "noop_agent1"],
               ["goto_agent0_pot0", "noop_agent1"], ["put_agent0_pot0", "noop_agent1"]]


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_goto_is_instant_and_any_location(make_world, rules):
    w = make_world(rules=rules)
    assert verdict(w, "goto_agent0_mixer1") == (True, None)
    assert w.agent_location(0) == "mixer1"
    assert verdict(w, "goto_agent0_mixer1") == (True, None)  # going where you are is fine


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_get_from_storage_needs_a_named_base_ingredient(make_world, rules):
    w = make_world(rules=rules)
    run(w, ["goto_agent0_storage0", "goto_agent1_storage0"])
    assert verdict(w, "get_agent0_storage0", "noop_agent1") == (False, Code.NOT_BASE_INGREDIENT)
    assert verdict(w, "get_agent0_cookedRice_storage0") == (False, Code.NOT_BASE_INGREDIENT)
    assert verdict(w, "get_agent0_banana_storage0") == (False, Code.NOT_BASE_INGREDIENT)
    assert verdict(w, "get_agent0_tuna_storage0") == (True, None)
    assert w.agent_holding(0) == "tuna"
    assert verdict(w, "get_agent0_rice_storage0") == (False, Code.HANDS_FULL)


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_get_refusals(make_world, rules):
    w = make_world(rules=rules)
    assert verdict(w, "get_agent0_rice_storage0") == (False, Code.NOT_AT_LOCATION)
    assert verdict(w, "get_agent0_servingtable0") == (False, Code.NOT_GETTABLE)
    run(w, ["goto_agent0_pot0", "noop_agent1"])
    assert verdict(w, "get_agent0_pot0") == (False, Code.NOT_GETTABLE)  # never activated
    run(w, ["goto_agent0_chopboard0", "noop_agent1"])
    assert verdict(w, "get_agent0_chopboard0") == (False, Code.LOCATION_EMPTY)


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_cook_time_pot_activated_at_t_gives_rice_at_t_plus_3(make_world, rules):
    w = make_world(rules=rules)
    run(w, *RICE_IN_POT)
    run(w, ["activate_agent0_pot0", "noop_agent1"])  # step t
    assert w.location_content("pot0") == ["cookedRice"]
    assert verdict(w, "get_agent0_pot0") == (False, Code.LOCATION_BUSY)  # t+1
    assert verdict(w, "get_agent0_pot0") == (False, Code.LOCATION_BUSY)  # t+2
    assert verdict(w, "get_agent0_pot0") == (True, None)  # t+3
    assert w.agent_holding(0) == "cookedRice"
    assert verdict(w, "put_agent0_pot0") == (False, Code.WOULD_BE_WASTE)


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_tool_is_gettable_only_after_activation_until_emptied(make_world, rules):
    w = make_world(rules=rules)
    run(w, *RICE_IN_POT)
    assert not w.location_gettable("pot0")
    run(w, ["activate_agent0_pot0", "noop_agent1"], ["noop_agent0", "noop_agent1"], ["noop_agent0", "noop_agent1"])
    assert w.location_gettable("pot0")
    run(w, ["get_agent0_pot0", "noop_agent1"])
    assert not w.location_gettable("pot0")
    assert w.location_content("pot0") == []


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_chopboard_keeps_its_operator_busy_and_raw_item_can_be_taken_back(make_world, rules):
    w = make_world(rules=rules)
    run(w, ["goto_agent0_storage0", "noop_agent1"], ["get_agent0_tuna_storage0", "noop_agent1"],
        ["goto_agent0_chopboard0", "noop_agent1"], ["put_agent0_chopboard0", "noop_agent1"])
    assert verdict(w, "get_agent0_chopboard0") == (True, None)  # raw tuna back in hand
    run(w, ["put_agent0_chopboard0", "noop_agent1"])
    result = w.check(["activate_agent0_chopboard0", "goto_agent0_storage0"])
    # the same agent twice: the reference rejects the whole step, fixed refuses the second only
    assert [o.ok for o in result] == ([False, False] if rules == "reference" else [True, False])
    run(w, ["activate_agent0_chopboard0", "noop_agent1"])
    assert w.location_content("chopboard0") == ["tunaSashimi"]
    assert verdict(w, "get_agent0_chopboard0") == (True, None)


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_operator_busy_refuses_other_verbs(make_world, rules):
    # a chopboard with a longer cook time keeps its operator busy across steps
    w = make_world(rules=rules)
    w._kitchen._cook[w.level.location_index["chopboard0"]] = 3
    run(w, ["goto_agent0_storage0", "noop_agent1"], ["get_agent0_tuna_storage0", "noop_agent1"],
        ["goto_agent0_chopboard0", "noop_agent1"], ["put_agent0_chopboard0", "noop_agent1"],
        ["activate_agent0_chopboard0", "noop_agent1"])
    assert w.agent_busy(0) == 2
    assert w.legal_commands(0) == ["noop_agent0"]
    assert "occupy(agent0)" in w.state_text()
    assert verdict(w, "goto_agent0_storage0") == (False, Code.AGENT_BUSY)
    assert verdict(w, "noop_agent0") == (True, None)


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_put_refusals(make_world, rules):
    w = make_world(rules=rules)
    assert verdict(w, "put_agent0_servingtable0") == (False, Code.HANDS_EMPTY)
    assert verdict(w, "put_agent0_pot0") == (False, Code.NOT_AT_LOCATION)
    run(w, ["goto_agent0_storage0", "noop_agent1"], ["get_agent0_tuna_storage0", "noop_agent1"],
        ["goto_agent0_pot0", "noop_agent1"])
    assert verdict(w, "put_agent0_pot0") == (False, Code.WOULD_BE_WASTE)
    run(w, ["goto_agent0_servingtable0", "noop_agent1"])
    assert verdict(w, "put_agent0_servingtable0") == (False, Code.NOT_A_LEVEL_DISH)
    run(w, ["goto_agent0_storage0", "noop_agent1"])
    assert verdict(w, "put_agent0_storage0") == (True, None)  # storage is the trash
    assert w.agent_holding(0) is None and w.location_content("storage0") == []


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_put_into_busy_tool_and_full_chopboard(make_world, rules):
    w = make_world(rules=rules)
    run(w, *RICE_IN_POT, ["activate_agent0_pot0", "noop_agent1"], ["goto_agent0_storage0", "noop_agent1"],
        ["get_agent0_rice_storage0", "noop_agent1"], ["goto_agent0_pot0", "noop_agent1"])
    ok, code = verdict(w, "put_agent0_pot0")
    assert not ok and code in {Code.LOCATION_BUSY, Code.WOULD_BE_WASTE}


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_full_tool_refuses_more(tmp_path, rules):
    """No shipped recipe fills a tool, so a user recipe of six ingredients shows capacity at work."""
    import json

    from cuisineworld import World, load_level

    ings = ["onion", "potato", "leek", "carrot", "broccoli", "cheese"]
    (tmp_path / "r.json").write_text(json.dumps({"schema": "mindagent/recipes@1", "recipes": [
        {"product": "bigStew", "tool": "pot", "ingredients": ings}]}))
    (tmp_path / "l.json").write_text(json.dumps({"schema": "mindagent/level@1", "name": "stew",
                                                 "dishes": ["bigStew"], "kitchen": ["storage", "servingtable", "pot"]}))
    w = World(load_level(tmp_path / "l.json", rules=rules, recipes=tmp_path / "r.json"), n_agents=1)
    for ing in ings[:5]:
        run(w, ["goto_agent0_storage0"], [f"get_agent0_{ing}_storage0"], ["goto_agent0_pot0"], ["put_agent0_pot0"])
    run(w, ["goto_agent0_storage0"], ["get_agent0_cheese_storage0"], ["goto_agent0_pot0"])
    result = w.step(["put_agent0_pot0"])
    assert result.outcomes[0].reason.code is Code.LOCATION_FULL
    assert w.location_content("pot0") == ings[:5]


def test_put_waste_rule_follows_recipe_prefixes(make_world):
    w = make_world("level_8")
    run(w, ["goto_agent0_storage0", "goto_agent1_storage0"], ["get_agent0_beef_storage0", "get_agent1_flour_storage0"],
        ["goto_agent0_blender0", "goto_agent1_blender0"], ["put_agent0_blender0", "noop_agent1"])
    # beef+flour is a blender recipe, but not one of level 8 (only its closure is active): waste
    assert w.step(["noop_agent0", "put_agent1_blender0"]).outcomes[1].reason.code is Code.WOULD_BE_WASTE
    w1 = make_world("level_1")
    run(w1, ["goto_agent0_storage0", "goto_agent1_storage0"], ["get_agent0_salmon_storage0", "get_agent1_flour_storage0"],
        ["goto_agent0_blender0", "goto_agent1_blender0"], ["put_agent0_blender0", "put_agent1_blender0"])
    assert w1.location_content("blender0") == ["salmon", "flour"]
    assert verdict(w1, "activate_agent0_blender0") == (True, None)
    assert w1.location_content("blender0") == ["salmonMeatcake"]


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_activate_refusals(make_world, rules):
    w = make_world(rules=rules)
    assert verdict(w, "activate_agent0_pot0") == (False, Code.NOT_AT_LOCATION)
    run(w, ["goto_agent0_pot0", "noop_agent1"])
    assert verdict(w, "activate_agent0_pot0") == (False, Code.LOCATION_EMPTY)
    run(w, ["goto_agent0_storage0", "noop_agent1"], ["get_agent0_rice_storage0", "noop_agent1"],
        ["goto_agent0_pot0", "noop_agent1"])
    assert verdict(w, "activate_agent0_pot0") == (False, Code.HANDS_FULL)
    run(w, ["put_agent0_pot0", "noop_agent1"], ["activate_agent0_pot0", "noop_agent1"])
    assert verdict(w, "activate_agent0_pot0") == (False, Code.LOCATION_BUSY)
    run(w, ["noop_agent0", "noop_agent1"])
    assert verdict(w, "activate_agent0_pot0") == (False, Code.NO_RECIPE)  # cookedRice alone is no recipe


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_put_then_activate_in_one_step_works_in_that_order_only(make_world, rules):
    w = make_world(rules=rules)
    run(w, ["goto_agent0_storage0", "goto_agent1_pot0"], ["get_agent0_rice_storage0", "noop_agent1"],
        ["goto_agent0_pot0", "noop_agent1"])
    before = w.state_text()
    wrong = w.check(["activate_agent1_pot0", "put_agent0_pot0"])
    assert [o.ok for o in wrong] == [False, True] and wrong[0].reason.code is Code.LOCATION_EMPTY
    assert w.state_text() == before  # check changes nothing
    right = w.step(["put_agent0_pot0", "activate_agent1_pot0"])
    assert all(o.ok for o in right.outcomes)
    assert w.location_content("pot0") == ["cookedRice"]


def test_mixer_has_no_cook_time_so_get_in_same_step_works(make_world):
    w = make_world("level_4")
    run(w, ["goto_agent0_storage0", "noop_agent1"], ["get_agent0_lettuce_storage0", "noop_agent1"],
        ["goto_agent0_chopboard0", "noop_agent1"], ["put_agent0_chopboard0", "noop_agent1"],
        ["activate_agent0_chopboard0", "noop_agent1"], ["get_agent0_chopboard0", "noop_agent1"],
        ["goto_agent0_mixer0", "goto_agent1_mixer0"], ["put_agent0_mixer0", "noop_agent1"])
    result = w.step(["activate_agent0_mixer0", "get_agent1_mixer0"])
    assert all(o.ok for o in result.outcomes)
    assert w.agent_holding(1) == "lettuceSalad"


def test_duplicate_put_vanishes_in_reference_and_is_refused_in_fixed(make_world):
    for rules, expected in (("reference", (True, None)), ("fixed", (False, Code.DUPLICATE_ITEM))):
        w2 = make_world("level_8", rules=rules)
        run(w2, ["goto_agent0_storage0", "goto_agent1_storage0"], ["get_agent0_beef_storage0", "get_agent1_beef_storage0"],
            ["goto_agent0_blender0", "goto_agent1_blender0"], ["put_agent0_blender0", "noop_agent1"])
        outcome = w2.step(["noop_agent0", "put_agent1_blender0"]).outcomes[1]
        assert (outcome.ok, outcome.reason.code if outcome.reason else None) == expected
        assert w2.location_content("blender0") == ["beef"]
        assert w2.agent_holding(1) == (None if rules == "reference" else "beef")


def test_reference_rejects_whole_joint_action_fixed_fails_only_the_bad_command(make_world):
    for bad, code in (("dance_agent1_storage0", Code.UNKNOWN_VERB), ("goto_agent1_moon0", Code.UNKNOWN_LOCATION),
                      ("goto_agent7_storage0", Code.UNKNOWN_AGENT), ("goto_agent1", Code.MALFORMED),
                      ("goto_agent1_a_b_c", Code.MALFORMED), ("goto_agent1_tuna_storage0", Code.MALFORMED),
                      ("goto_agent0_storage0", Code.DUPLICATE_AGENT), ("nonsense", Code.MALFORMED)):
        ref = make_world(rules="reference")
        result = ref.step(["goto_agent0_storage0", bad])
        assert [o.ok for o in result.outcomes] == [False, False]
        assert result.outcomes[1].reason.code is code
        assert result.outcomes[0].reason.code is Code.JOINT_REJECTED
        assert ref.agent_location(0) == "servingtable0" and ref.time == 1  # time still advances
        fixed = make_world(rules="fixed")
        result = fixed.step(["goto_agent0_storage0", bad])
        assert [o.ok for o in result.outcomes] == [True, False]
        assert result.outcomes[1].reason.code is code
        assert fixed.agent_location(0) == "storage0"


def test_noop_notes_and_empty_step(make_world):
    w = make_world()
    assert [n.code for n in w.step(["noop_agent0", "noop_agent1"]).notes] == [Code.NOTHING_DONE]
    assert [n.code for n in w.step([]).notes] == [Code.NO_COMMANDS]
    assert w.time == 2


def test_three_part_noop_and_typed_commands(make_world):
    from cuisineworld import Command

    w = make_world()
    assert verdict(w, "noop_agent0_storage0") == (True, None)  # the reference reads it as noop
    result = w.step([Command("goto", 0, "storage0"), Command("get", 0, "storage0", "rice")])
    assert result.outcomes[1].reason.code is Code.DUPLICATE_AGENT
    result = w.step([Command("goto", 0, "storage0"), Command("goto", 1, "pot0")])
    assert all(o.ok for o in result.outcomes)
    assert str(Command("get", 0, "storage0", "rice")) == "get_agent0_rice_storage0"
