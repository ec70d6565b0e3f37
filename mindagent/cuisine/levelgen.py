"""Procedural CuisineWorld levels from the recipe graph, checked solvable before they are written.

A level is a list of dishes and a kitchen. `generate_level` picks dishes from the shipped recipe
book (or a given one) with one seeded generator, sizes the kitchen to the tools the dishes' trees
use (one instance per tool type, a second one for the types used most, per `difficulty`), and
keeps the level only if the planner completes orders on it: a file that nobody can play is not a
benchmark level. Difficulty steers the dish choice by recipe-tree size (`easy`: small trees,
`hard`: large ones) and the number of spare tools; what a level really costs is then measured by
the planner's CoS and the upper bound (`levels generate` prints both).

`level_data` builds a level in memory (no file), which the property tests use with synthetic
recipe graphs.

Example::

    data = generate_level(seed=3, dishes=2, difficulty="medium")
    level_json(data)      # the file `mindagent levels generate` writes
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cuisineworld import Level
from cuisineworld.level import compile_level
from levels import LevelData, load_location_types, load_recipes
from levels.schema import LevelFile, RecipeSpec

DIFFICULTIES = ("easy", "medium", "hard")
#: attempts before `generate_level` gives up on finding a solvable level for the request
ATTEMPTS = 40
#: the solvability check: planner episodes of this length at the gentlest paper tau
CHECK_TAU = 3.0


class GenerationError(ValueError):
    """No solvable level matches the request (tools that cannot make any dish, say)."""


@dataclass(frozen=True, slots=True)
class _Graph:
    recipes: dict[str, RecipeSpec]
    base: frozenset[str]

    def nodes(self, product: str) -> int:
        recipe = self.recipes.get(product)
        if recipe is None:
            return 1
        return 1 + sum(self.nodes(i) for i in recipe.ingredients)

    def tools(self, product: str) -> Counter[str]:
        recipe = self.recipes.get(product)
        if recipe is None:
            return Counter()
        out = Counter([recipe.tool])
        for i in recipe.ingredients:
            out += self.tools(i)
        return out


def level_data(name: str, dishes: Sequence[str], kitchen: Sequence[str], recipes: Sequence[RecipeSpec],
               base: Sequence[str], max_steps: int = 60, difficulty: str | None = None,
               agents: Sequence[dict[str, list[str]]] | None = None) -> LevelData:
    """A level held in memory, validated by the same schema as a level file."""
    spec = LevelFile.model_validate({"schema": "mindagent/level@1", "name": name, "dishes": list(dishes),
                                     "kitchen": list(kitchen), "max_steps": max_steps, "difficulty": difficulty,
                                     "agents": None if agents is None else list(agents)})
    return LevelData(spec, tuple(recipes), tuple(base), load_location_types(), f"<generated {name}>")


def _kitchen(graph: _Graph, dishes: Sequence[str], spare_tools: int, allowed: Sequence[str] | None) -> list[str] | None:
    use: Counter[str] = Counter()
    for dish in dishes:
        use += graph.tools(dish)
    if allowed is not None and any(t not in allowed for t in use):
        return None
    types = sorted(use, key=lambda t: (-use[t], t))  # most used first, ties by name: deterministic
    kitchen = ["storage", "servingtable"]
    for t in sorted(use):
        kitchen.append(t)
    for t in types[:spare_tools]:
        kitchen.append(t)
    return kitchen


def _split(graph: _Graph, dishes: Sequence[str], kitchen: list[str]) -> tuple[list[str], list[dict[str, list[str]]]]:
    """Forced hand-offs (issue 15): the kitchen split by a pass of two counters. The storage and
    the tool types deepest in the dishes' trees (the first half, at least none) go to one agent, the
    other tools and the serving table to the other, so raw items, products or dishes must cross."""
    depth: dict[str, int] = {}

    def walk(product: str, level: int) -> None:
        recipe = graph.recipes.get(product)
        if recipe is None:
            return
        depth[recipe.tool] = max(depth.get(recipe.tool, 0), level)
        for i in recipe.ingredients:
            walk(i, level + 1)

    for dish in dishes:
        walk(dish, 0)
    types = sorted(depth, key=lambda t: (-depth[t], t))
    prep = types[: len(types) // 2]
    return kitchen + ["counter", "counter"], [
        {"reach": ["storage", *prep, "counter"]},
        {"reach": ["counter", *[t for t in types if t not in prep], "servingtable"]},
    ]


def _pick_dishes(rng: random.Random, graph: _Graph, count: int, difficulty: str) -> list[str]:
    products = sorted(p for p in graph.recipes if graph.nodes(p) > 1)
    products.sort(key=lambda p: (graph.nodes(p), p))
    third = max(1, len(products) // 3)  # thirds by recipe-tree size: small, middle, large trees
    pool = {"easy": products[:third], "medium": products[third: 2 * third], "hard": products[2 * third:]}[difficulty]
    if len(pool) < count:
        pool = products
    return sorted(rng.sample(pool, count), key=pool.index)


def solvable(level: Level, agents: int = 2) -> bool:
    """True when the planner completes at least one order in one episode at tau 3.0."""
    from mindagent.cuisine.planners import CuisinePlanner
    from mindagent.cuisine.planners.evaluate import run_tau

    result, _ = run_tau(CuisinePlanner(), level, agents, CHECK_TAU, seed=0, episodes=1)
    return result.completed > 0


def generate_level(seed: int, dishes: int = 2, tools: Sequence[str] | None = None, difficulty: str = "medium",
                   name: str | None = None, recipes_file: str | None = None, handoffs: bool = False) -> LevelData:
    """A solvable level: `dishes` dishes whose trees use only `tools` (all types when None);
    `handoffs` splits the kitchen between two agent profiles that pass items over counters."""
    if difficulty not in DIFFICULTIES:
        raise GenerationError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    if dishes < 1:
        raise GenerationError("a level needs at least one dish")
    book = load_recipes(recipes_file)
    graph = _Graph({r.product: r for r in book.recipes}, frozenset(book.base_ingredients))
    spare = {"easy": 2, "medium": 1, "hard": 0}[difficulty]
    rng = random.Random(seed)
    usable = _Graph({p: r for p, r in graph.recipes.items()
                     if tools is None or all(t in tools for t in graph.tools(p))}, graph.base)
    if sum(1 for p in usable.recipes if usable.nodes(p) > 1) < dishes:
        raise GenerationError(f"the tools {', '.join(tools or [])} make fewer than {dishes} dishes")
    level_name = name or f"gen_s{seed}_d{dishes}_{difficulty}"
    for _ in range(ATTEMPTS):
        chosen = _pick_dishes(rng, usable, dishes, difficulty)
        kitchen = _kitchen(usable, chosen, spare, tools)
        if kitchen is None:
            continue
        profiles = None
        if handoffs:
            kitchen, profiles = _split(usable, chosen, kitchen)
        data = level_data(level_name, chosen, kitchen, book.recipes, book.base_ingredients, difficulty=difficulty,
                          agents=profiles)
        if solvable(compile_level(data)):
            return data
    raise GenerationError(f"no solvable level in {ATTEMPTS} attempts for seed {seed}, {dishes} dishes, {difficulty}")


def level_json(data: LevelData, note: str | None = None) -> str:
    """The level as our level file (`levels/` schema); the recipes stay in the shipped book."""
    spec = data.level
    payload: dict[str, object] = {"schema": "mindagent/level@1", "name": spec.name, "dishes": list(spec.dishes),
                                  "kitchen": list(spec.kitchen), "max_steps": spec.max_steps,
                                  "difficulty": spec.difficulty}
    if spec.agents:
        payload["agents"] = [p.model_dump(exclude_none=True) for p in spec.agents]
    if note:
        payload["note"] = note
    return json.dumps(payload, indent=2) + "\n"
