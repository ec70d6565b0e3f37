"""The shipped data (counts from the reference) and the errors a bad user file gets."""

from __future__ import annotations

import json

import pytest

from cuisineworld import LevelFileError, load_level
from cuisineworld.levels import level_names, load_location_types, load_recipes


def test_shipped_data_counts():
    assert len(load_location_types()) == 11  # the reference's ten, and the counter for hand-offs
    book = load_recipes()
    assert len(book.base_ingredients) == 27
    assert len(book.recipes) == 63
    assert level_names() == [f"level_{i}" for i in range(13)] + ["pass_sushi", "secret_salad", "relay_sashimi"]


def test_every_level_loads_under_both_rule_sets():
    for name in level_names():
        for rules in ("reference", "fixed"):
            level = load_level(name, rules=rules)
            assert level.location_names[0].endswith("0")
            assert {r.product for r in level.recipes} >= set(level.dishes)


def test_instances_are_named_in_kitchen_order():
    assert load_level("level_5").location_names == (
        "storage0", "pan0", "pan1", "pot0", "pot1", "mixer0", "mixer1", "blender0", "blender1",
        "servingtable0", "chopboard0", "chopboard1")


def test_location_type_rules():
    types = {t.name: t for t in load_location_types()}
    assert (types["pot"].cook_time, types["pot"].capacity) == (3, 5)
    assert types["chopboard"].operator_busy and types["chopboard"].gettable == "always"
    assert types["storage"].capacity is None and types["servingtable"].gettable == "never"
    assert types["mixer"].cook_time == 0


@pytest.mark.parametrize(
    ("content", "field", "problem"),
    [
        ("{not json", "line 1", "not valid JSON"),
        ('{"schema": "mindagent/level@1", "name": "x", "kitchen": ["storage", "servingtable"]}', "dishes", "Field required"),
        ('{"schema": "mindagent/level@1", "name": "x", "dishes": ["pizza"], "kitchen": ["storage", "servingtable"]}', "dishes.0", "pizza"),
        ('{"schema": "mindagent/level@1", "name": "x", "dishes": ["cake"], "kitchen": ["storage", "grill"]}', "kitchen.1", "grill"),
        ('{"schema": "mindagent/level@1", "name": "x", "dishes": ["cake"], "kitchen": ["blender", "servingtable"]}', "kitchen", "storage"),
        ('{"schema": "mindagent/level@1", "name": "x", "dishes": ["cake"], "kitchen": ["storage", "servingtable"], '
         '"max_steps": -1}', "max_steps", "greater"),
        ('{"schema": "other", "name": "x", "dishes": ["cake"], "kitchen": ["storage", "servingtable"]}', "schema", "mindagent/level@1"),
    ],
)
def test_bad_level_file_names_file_field_and_problem(tmp_path, content, field, problem):
    path = tmp_path / "mine.json"
    path.write_text(content)
    with pytest.raises(LevelFileError) as info:
        load_level(path)
    assert info.value.file == str(path)
    assert info.value.field.startswith(field)
    assert problem in str(info.value)


def test_bad_recipe_file(tmp_path):
    level = tmp_path / "l.json"
    level.write_text(json.dumps({"schema": "mindagent/level@1", "name": "x", "dishes": ["cake"], "kitchen": ["storage", "servingtable"]}))
    recipes = tmp_path / "r.json"
    recipes.write_text(json.dumps(
        {"schema": "mindagent/recipes@1", "recipes": [{"product": "soup", "tool": "pot", "ingredients": ["unobtainium"]}]}
    ))
    with pytest.raises(LevelFileError, match="recipes.* 'unobtainium' is neither"):
        load_level(level, recipes=recipes)
    recipes.write_text(json.dumps({"schema": "mindagent/recipes@1", "recipes": [
        {"product": "a", "tool": "pot", "ingredients": ["b"]}, {"product": "b", "tool": "pot", "ingredients": ["a"]}]}))
    with pytest.raises(LevelFileError, match="cycle"):
        load_level(level, recipes=recipes)


def test_unknown_level_name():
    with pytest.raises(LevelFileError, match="no such level"):
        load_level("level_99")
