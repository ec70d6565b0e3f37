"""Small random split kitchens, for checking the upper bound against an exact search.

The bound's split-kitchen terms (`reach_bound`) are an argument about which agent must issue
which command; the way to catch a forgotten move is to search the engine itself on many kitchens
the argument was not written for. Each case here is drawn from one seed: one or two recipes over
four base ingredients (a product may be an ingredient of the next, on another tool type or the
same one), a kitchen with one or two counters, and a random reach for each of two profiles (every
place goes to one side or both, counters to both) such that some dish needs a hand-off. The
horizon is short enough for `exact_best` with two agents and long enough to serve the first order.

Example::

    case = split_case(7)
    case.level.heterogeneous        # True
    tau_bound(case.level, case.agents, case.tau, case.seed, episodes=1, max_steps=case.steps)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from cuisineworld import Level
from cuisineworld.adapter.levelgen import level_data
from cuisineworld.adapter.planners.reach_bound import critical_path
from cuisineworld.adapter.planners.recipes import RecipeBook
from cuisineworld.level import compile_level
from cuisineworld.levels import LevelFileError
from cuisineworld.levels.schema import RecipeSpec

BASES = ("salmon", "tuna", "flour", "lamb")
TOOLS = ("chopboard", "mixer", "pan", "blender")
#: Draws tried per seed before giving up (a draw fails when no dish needs a hand-off, say).
ATTEMPTS = 200
#: Longest horizon drawn: the search with two agents stays within seconds to a minute below this.
MAX_STEPS = 10


@dataclass(frozen=True, slots=True)
class SplitCase:
    level: Level
    agents: int
    tau: float
    seed: int  # the episode's order seed
    steps: int  # the horizon searched


def _recipes(rng: random.Random) -> list[RecipeSpec]:
    recipes: list[RecipeSpec] = []
    for k in range(rng.randint(1, 2)):
        tool = rng.choice(TOOLS)
        pool = list(BASES) + [r.product for r in recipes]
        size = 1 if tool == "chopboard" else rng.randint(1, 2)
        ingredients = rng.sample(pool, size)
        if recipes and rng.random() < 0.5 and recipes[-1].product not in ingredients:
            ingredients[0] = recipes[-1].product  # a chain: the last product goes into this one
        if any(r.tool == tool and sorted(r.ingredients) == sorted(ingredients) for r in recipes):
            continue
        recipes.append(RecipeSpec(product=f"split{k}", tool=tool, ingredients=ingredients))
    return recipes


def _draw(rng: random.Random, rules: str) -> Level | None:
    recipes = _recipes(rng)
    dishes = sorted(rng.sample([r.product for r in recipes], rng.randint(1, len(recipes))))
    tools = sorted({r.tool for r in recipes})
    kitchen = ["storage", "servingtable", *tools] + ["counter"] * rng.randint(1, 2)
    if rng.random() < 0.3:
        kitchen.append(rng.choice(tools))
    names: list[str] = []
    seen: dict[str, int] = {}
    for kind in kitchen:
        names.append(f"{kind}{seen.get(kind, 0)}")
        seen[kind] = seen.get(kind, 0) + 1
    sides: list[list[str]] = [[], []]
    for name in names:
        if name.startswith("counter"):
            sides[0].append(name)
            sides[1].append(name)
        else:
            pick = rng.choice((0, 1, 1, 0, 2)) if not name.startswith("storage") else rng.choice((0, 0, 2))
            for side in ((0, 1) if pick == 2 else (pick,)):
                sides[side].append(name)
    agents = [{"reach": side} for side in sides]
    try:
        level = compile_level(level_data("split", dishes, kitchen, recipes, BASES, agents=agents), rules)
    except LevelFileError:
        return None
    book = RecipeBook(level)
    if not book.servable_dishes or not any(book.handoffs(d, 2) for d in book.servable_dishes):
        return None
    return level


def split_case(seed: int) -> SplitCase:
    """The split kitchen, rules, tau, order seed and horizon drawn from `seed` (always the same)."""
    rng = random.Random(seed)
    for _ in range(ATTEMPTS):
        rules = rng.choice(("reference", "fixed"))
        level = _draw(rng, rules)
        if level is None:
            continue
        book = RecipeBook(level)
        shortest = min(critical_path(book, d, 2) for d in book.servable_dishes)
        steps = min(MAX_STEPS, shortest + rng.randint(0, 2))
        return SplitCase(level, 2, rng.choice((1.0, 2.0, 3.0)), rng.randint(0, 50), max(1, steps))
    raise RuntimeError(f"no split kitchen with a hand-off in {ATTEMPTS} draws from seed {seed}")
