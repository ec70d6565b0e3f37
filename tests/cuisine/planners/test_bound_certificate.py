"""The upper bound's certificate: an exact search over the engine's own actions never beats it.

The bound (`upper_bound.py`) is an argument about which commands a dish needs; the search
(`exact.py`) steps copies of the World through every joint action, so a move the argument forgot
shows up here as a search result above the bound. Issue 15's one-mixer chain level is such a
move: each dish is built on the last one while it is still inside the mixer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuisineworld import World, load_level
from cuisineworld.adapter.levelgen import level_data
from cuisineworld.adapter.planners.exact import exact_best
from cuisineworld.adapter.planners.recipes import RecipeBook
from cuisineworld.adapter.planners.upper_bound import tau_bound
from cuisineworld.level import compile_level
from cuisineworld.levels.schema import RecipeSpec

DATA = Path(__file__).parent.parent / "data"


def chain_level(rules: str = "reference"):
    return load_level(DATA / "chain_level.json", rules, recipes=DATA / "chain_recipes.json")


def test_a_chained_dish_is_built_inside_the_mixer_in_22_commands():
    """One agent serves surfTurfDough in 22 steps: salmon, flour, activate, tuna onto the finished
    fishDough, activate, lamb onto fishTunaDough, activate, take it out, serve."""
    level = chain_level()
    assert RecipeBook(level).work("surfTurfDough") == 22
    world = World(level, n_agents=1, tau=3.0, seed=5)  # seed 5: the first order is surfTurfDough
    world.reset()
    assert [o.dish for o in world.orders] == ["surfTurfDough"]
    script = []
    for item in ("salmon", "flour"):
        script += ["goto_agent0_storage0", f"get_agent0_{item}_storage0", "goto_agent0_mixer0", "put_agent0_mixer0"]
    script.append("activate_agent0_mixer0")
    for item in ("tuna", "lamb"):
        script += ["goto_agent0_storage0", f"get_agent0_{item}_storage0", "goto_agent0_mixer0", "put_agent0_mixer0",
                   "activate_agent0_mixer0"]
    script += ["get_agent0_mixer0", "goto_agent0_servingtable0", "put_agent0_servingtable0"]
    assert len(script) == 22
    for command in script:
        result = world.step([command])
        assert result.outcomes[0].ok, (command, result.outcomes[0].reason)
    assert result.completed == ["surfTurfDough"]


@pytest.mark.parametrize("rules", ["reference", "fixed"])
@pytest.mark.parametrize(("seed", "steps", "tau"), [(5, 22, 3.5), (5, 22, 3.0), (6, 24, 3.0), (0, 20, 3.0), (2, 16, 3.0)])
def test_search_does_not_beat_the_bound_on_the_chain_level(rules: str, seed: int, steps: int, tau: float):
    """(5, 22, 3.5): one order, surfTurfDough, and 22 steps: the search serves it, which the old
    bound (26 commands per dish, products always taken out of their tool) said was impossible."""
    level = chain_level(rules)
    best = exact_best(level, agents=1, tau=tau, steps=steps, seed=seed)
    bound = tau_bound(level, 1, tau, seed=seed, episodes=1, max_steps=steps)
    assert best.completed <= bound.completed
    assert best.rate <= bound.rate + 1e-9


def test_the_search_reaches_the_bound_where_it_is_tight():
    level = chain_level()
    best = exact_best(level, agents=1, tau=3.0, steps=22, seed=5)
    assert best.completed == 1 == tau_bound(level, 1, 3.0, seed=5, episodes=1, max_steps=22).completed


@pytest.mark.slow  # two agents: the joint action space is squared
def test_two_agents_do_not_beat_the_bound_on_the_chain_level():
    level = chain_level()
    for seed, steps in ((5, 12), (1, 8)):
        best = exact_best(level, agents=2, tau=3.0, steps=steps, seed=seed)
        bound = tau_bound(level, 2, 3.0, seed=seed, episodes=1, max_steps=steps)
        assert best.completed <= bound.completed and best.rate <= bound.rate + 1e-9


# --------------------------------------------------------------------------- generated levels
BASES = ("salmon", "flour", "tuna", "lamb")
TOOLS = ("mixer", "blender", "chopboard", "pan")


@st.composite
def small_levels(draw: st.DrawFn) -> tuple[object, int, float, int]:
    """A synthetic recipe graph (products may chain on one tool type), a small kitchen, a horizon."""
    recipes: list[RecipeSpec] = []
    keys: set[tuple[str, tuple[str, ...]]] = set()
    for k in range(draw(st.integers(1, 3))):
        if recipes and recipes[-1].tool != "chopboard" and draw(st.booleans()):
            # a chain link: the last product and one base ingredient on the same tool type
            tool = recipes[-1].tool
            ingredients = [recipes[-1].product, draw(st.sampled_from(BASES))]
        else:
            tool = draw(st.sampled_from(TOOLS))
            pool = list(BASES) + [r.product for r in recipes]
            size = 1 if tool == "chopboard" else draw(st.integers(1, 3))
            ingredients = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))
        key = (tool, tuple(sorted(ingredients)))
        if key in keys:
            continue
        keys.add(key)
        recipes.append(RecipeSpec(product=f"gen{k}", tool=tool, ingredients=ingredients))
    products = [r.product for r in recipes]
    dishes = draw(st.lists(st.sampled_from(products), min_size=1, max_size=2, unique=True))
    kitchen = ["storage", "servingtable"] + sorted({r.tool for r in recipes})
    if draw(st.booleans()):
        kitchen.append(draw(st.sampled_from(TOOLS)))
    rules = draw(st.sampled_from(["reference", "fixed"]))
    level = compile_level(level_data("generated", dishes, kitchen, recipes, BASES), rules)
    tau = draw(st.sampled_from([1.0, 2.0, 3.0, 4.0]))
    seed = draw(st.integers(0, 50))
    if draw(st.booleans()):
        steps = draw(st.integers(6, 16))
    else:  # the horizon where the bound is tight: just enough commands for the first order's dish
        first = World(level, 1, tau, seed)
        first.reset()
        steps = min(18, RecipeBook(level).work(first.orders[0].dish) + draw(st.integers(0, 1)))
    return level, max(1, steps), tau, seed


def _check(case: tuple[object, int, float, int]) -> None:
    level, steps, tau, seed = case
    best = exact_best(level, agents=1, tau=tau, steps=steps, seed=seed)  # type: ignore[arg-type]
    bound = tau_bound(level, 1, tau, seed=seed, episodes=1, max_steps=steps)  # type: ignore[arg-type]
    assert best.completed <= bound.completed, (level, steps, tau, seed)
    assert best.rate <= bound.rate + 1e-9, (level, steps, tau, seed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_levels())
def test_no_search_beats_the_bound_on_generated_levels(case: tuple[object, int, float, int]):
    _check(case)


@pytest.mark.slow  # the 200-level certificate
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_levels())
def test_no_search_beats_the_bound_on_200_generated_levels(case: tuple[object, int, float, int]):
    _check(case)


def handoff_level(rules: str = "reference"):
    return load_level(DATA / "handoff_mini.json", rules)


def test_the_bound_counts_the_hand_off_a_split_kitchen_forces():
    """Fish crosses the counter (3 more commands: goto, put, the other agent's get); the sashimi
    does not (its chopboard is beside the serving table). One agent reaches everything."""
    book = RecipeBook(handoff_level())
    assert book.work("salmonSashimi") == 8
    assert book.handoffs("salmonSashimi", 2) == 1
    assert book.handoffs("salmonSashimi", 1) == 0


@pytest.mark.parametrize("rules", ["reference", "fixed"])
def test_search_does_not_beat_the_bound_on_a_split_kitchen(rules: str):
    """Seed 0, 10 steps, tau 3: two sashimi orders. Without the hand-off cost the bound would allow
    both (16 commands in 20); with it (22) only one, and the exact search finds exactly one."""
    level = handoff_level(rules)
    best = exact_best(level, agents=2, tau=3.0, steps=10, seed=0)
    bound = tau_bound(level, 2, 3.0, seed=0, episodes=1, max_steps=10)
    assert bound.orders == 2
    assert best.completed == bound.completed == 1
    assert best.rate <= bound.rate + 1e-9


@pytest.mark.slow  # longer horizons: tens of seconds each
@pytest.mark.parametrize("rules", ["reference", "fixed"])
@pytest.mark.parametrize(("seed", "steps", "tau"), [(0, 12, 1.5), (1, 12, 3.0), (3, 9, 3.0)])
def test_longer_searches_do_not_beat_the_bound_on_a_split_kitchen(rules: str, seed: int, steps: int, tau: float):
    level = handoff_level(rules)
    best = exact_best(level, agents=2, tau=tau, steps=steps, seed=seed)
    bound = tau_bound(level, 2, tau, seed=seed, episodes=1, max_steps=steps)
    assert best.completed <= bound.completed
    assert best.rate <= bound.rate + 1e-9


@pytest.mark.slow  # the shipped split kitchens are larger: only their first steps can be searched
@pytest.mark.parametrize("rules", ["reference", "fixed"])
@pytest.mark.parametrize(("level", "steps"), [("pass_sushi", 6), ("relay_sashimi", 10), ("secret_salad", 7)])
def test_search_does_not_beat_the_bound_on_the_shipped_split_kitchens(level: str, steps: int, rules: str):
    compiled = load_level(level, rules)
    best = exact_best(compiled, agents=2, tau=3.0, steps=steps, seed=0)
    bound = tau_bound(compiled, 2, 3.0, seed=0, episodes=1, max_steps=steps)
    assert best.completed <= bound.completed
    assert best.rate <= bound.rate + 1e-9
