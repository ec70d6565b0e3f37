"""Recipe-tree arithmetic that both the scheduler and the upper bound rely on."""

from __future__ import annotations

from cuisineworld import load_level
from cuisineworld.adapter.planners.recipes import RecipeBook


def test_sizes_and_work():
    book = RecipeBook(load_level("level_3"))
    assert book.size("salmonSushi") == 5
    assert book.work("salmonSushi") == 20
    assert sorted(book.activations("salmonSushi")) == ["chopboard", "mixer", "pot"]


def test_critical_path_matches_hand_count():
    # goto, get, goto, put (step 3, both ingredients by two agents), a third agent activates at 3,
    # the blender cooks 2 steps, get at 5, goto at 6, serving put at 7: eight steps
    assert RecipeBook(load_level("level_0")).critical_path("salmonMeatcake") == 8


def test_frenchfries_needs_the_fixed_kitchen():
    assert "frenchFries" not in RecipeBook(load_level("level_12")).servable_dishes
    assert "frenchFries" in RecipeBook(load_level("level_12", "fixed")).servable_dishes


def test_missing_ingredients():
    book = RecipeBook(load_level("level_9"))
    assert sorted(book.missing("MaxJr", ["cheese", "bread"]) or []) == ["lettuceSlice", "sauteedBeef"]
    assert book.missing("MaxJr", ["tomatoSlice"]) is None
