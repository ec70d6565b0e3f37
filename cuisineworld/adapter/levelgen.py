"""Procedural CuisineWorld levels from the recipe graph, with a difficulty that was measured.

A level is a list of dishes and a kitchen. `generate_level` draws candidate levels with one
seeded generator, measures each with the built-in planner and the upper bound, and writes the
first whose measured planner CoS falls in the band its difficulty names (`BANDS`); a level the
planner cannot complete an order on is never accepted, whatever its band.

**What a dish is.** The recipe book does not mark dishes; the graph does. A dish is a product
that no recipe uses as an ingredient (a sink of the recipe graph): `tomatoSlice` feeds salads and
burgers, so it is an intermediate and never ordered by a generated level; `mixedSalad` feeds
nothing, so it is a dish. The rule is `dish_names`; it makes 44 of the 63 shipped products dishes.
(Two paper levels order intermediates, level_2's sashimis; hand-made levels may, generated ones
do not.)

**Candidates.** The first half of the attempts draw dishes from the third of the dishes whose
recipe trees are the size the difficulty suggests (small for easy, large for hard) and give the
kitchen the difficulty's spare tools (easy 2, medium 1, hard 0: one extra instance of the most
used tool types); the second half draw from all dishes with 0-2 spare tools. The kitchen always
has storage, a serving table and one of every tool type the dishes' trees use.

**Measurement** (`measure`): the planner under the paper's protocol (five taus, three consecutive
60-step episodes each, order seed 0) with the requested team size (2 by default), and the upper
bound for the same protocol: the figures `mindagent eval --compare paper` prints for the level.
(One episode per tau was tried first: it is three times cheaper, but a level measured at 0.724
scored 0.784 over three, the other side of a band edge.)
The figures go into the level file (`calibration`), so the difficulty of a file can be checked
rather than trusted. Everything is deterministic for a seed: the generator draws the candidates,
the planner and the bound are deterministic.

Example::

    data = generate_level(seed=3, dishes=2, difficulty="medium")
    data.level.calibration.planner_cos    # inside BANDS["medium"]
    level_json(data)                      # the file `mindagent levels generate` writes
"""

from __future__ import annotations

import json
import logging
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from cuisineworld import PAPER_TAUS, Level
from cuisineworld.level import compile_level
from cuisineworld.levels import LevelData, load_location_types, load_recipes
from cuisineworld.levels.schema import CalibrationSpec, LevelFile, RecipeSpec

log = logging.getLogger(__name__)

DIFFICULTIES = ("easy", "medium", "hard")
#: The planner's CoS under the calibration protocol that names each difficulty: [low, high)
#: (easy includes 1.0). Chosen from the spread of the paper levels with two agents (0.59-0.86).
BANDS: dict[str, tuple[float, float]] = {"easy": (0.78, 1.0), "medium": (0.68, 0.78), "hard": (0.40, 0.68)}
#: the bands for split kitchens (`handoffs`): every hand-off costs three commands, so the planner
#: scores lower on the same dishes (0.34-0.75 on the shipped forced-collaboration levels, 0.05-0.52
#: over generated candidates with two agents); the bands sit inside that range
HANDOFF_BANDS: dict[str, tuple[float, float]] = {"easy": (0.50, 1.0), "medium": (0.35, 0.50), "hard": (0.10, 0.35)}
#: candidate levels measured before `generate_level` gives up
ATTEMPTS = 40
#: the calibration protocol: episodes per tau and the order seed (the paper's)
CALIBRATION_EPISODES = 3
CALIBRATION_SEED = 0
#: spare tool instances in the first half of the attempts
SPARE_TOOLS = {"easy": 2, "medium": 1, "hard": 0}


class GenerationError(ValueError):
    """No level matches the request (tools that cannot make enough dishes, or no candidate
    measured inside the difficulty's band)."""


def dish_names(recipes: Sequence[RecipeSpec], base: Sequence[str] = ()) -> list[str]:
    """The products no recipe uses as an ingredient (and that are not base ingredients), sorted:
    the only things a generated level orders."""
    consumed = {i for r in recipes for i in r.ingredients}
    return sorted({r.product for r in recipes} - consumed - set(base))


def band(difficulty: str, handoffs: bool = False) -> tuple[float, float]:
    """The planner CoS range [low, high) that names `difficulty` (for a split kitchen or not)."""
    return (HANDOFF_BANDS if handoffs else BANDS)[difficulty]


def in_band(cos: float, difficulty: str, handoffs: bool = False) -> bool:
    low, high = band(difficulty, handoffs)
    return low <= cos < high or (high >= 1.0 and cos >= 1.0)


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
               agents: Sequence[dict[str, list[str]]] | None = None,
               calibration: CalibrationSpec | None = None) -> LevelData:
    """A level held in memory, validated by the same schema as a level file."""
    spec = LevelFile.model_validate({"schema": "mindagent/level@1", "name": name, "dishes": list(dishes),
                                     "kitchen": list(kitchen), "max_steps": max_steps, "difficulty": difficulty,
                                     "agents": None if agents is None else list(agents),
                                     "calibration": calibration.model_dump() if calibration else None})
    return LevelData(spec, tuple(recipes), tuple(base), load_location_types(), f"<generated {name}>")


def kitchen_for(recipes: Sequence[RecipeSpec], dishes: Sequence[str], spare_tools: int) -> list[str]:
    """Storage, a serving table, one of every tool type the dishes' trees use, and one more of the
    `spare_tools` most used types (ties by name)."""
    graph = _Graph({r.product: r for r in recipes}, frozenset())
    use: Counter[str] = Counter()
    for dish in dishes:
        use += graph.tools(dish)
    most_used = sorted(use, key=lambda t: (-use[t], t))
    return ["storage", "servingtable", *sorted(use), *most_used[:spare_tools]]


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


def pick_dishes(rng: random.Random, recipes: Sequence[RecipeSpec], count: int, difficulty: str | None,
                base: Sequence[str] = (), among: Collection[str] | None = None) -> list[str]:
    """`count` dishes (`dish_names`, limited to `among` when given), from the third of them by
    recipe-tree size that `difficulty` suggests (small, middle, large trees; all of them when None
    or when that third is too small)."""
    graph = _Graph({r.product: r for r in recipes}, frozenset(base))
    products = [d for d in dish_names(recipes, base) if among is None or d in among]
    products.sort(key=lambda p: (graph.nodes(p), p))
    if len(products) < count:
        raise GenerationError(f"the recipes make {len(products)} dishes, fewer than {count}")
    pool = products
    if difficulty is not None:
        third = max(1, len(products) // 3)
        tiers = {"easy": products[:third], "medium": products[third: 2 * third], "hard": products[2 * third:]}
        if len(tiers[difficulty]) >= count:
            pool = tiers[difficulty]
    return sorted(rng.sample(pool, count), key=pool.index)


@dataclass(frozen=True, slots=True)
class Measure:
    planner_cos: float
    bound_cos: float
    completed: int


def measure(level: Level, agents: int) -> Measure | None:
    """The planner's CoS and the bound under the calibration protocol (None: no bound exists for
    this level because its order stream could depend on play)."""
    from cuisineworld.adapter.planners import CuisinePlanner
    from cuisineworld.adapter.planners.evaluate import run_cell
    from cuisineworld.adapter.planners.upper_bound import CapMayBind, upper_bound

    try:
        bound = upper_bound(level, agents, seed=CALIBRATION_SEED, episodes=CALIBRATION_EPISODES).cos
    except CapMayBind:
        return None
    cell = run_cell(CuisinePlanner(), level, agents, seed=CALIBRATION_SEED, episodes=CALIBRATION_EPISODES)
    return Measure(round(cell.cos, 4), round(bound, 4), sum(t.completed for t in cell.taus))


def generate_level(seed: int, dishes: int = 2, tools: Sequence[str] | None = None, difficulty: str = "medium",
                   name: str | None = None, recipes_file: str | None = None, agents: int = 2,
                   handoffs: bool = False) -> LevelData:
    """A level of `dishes` dishes whose trees use only `tools` (all types when None), whose measured
    planner CoS with `agents` agents lies in `BANDS[difficulty]` (`HANDOFF_BANDS` when split); `handoffs` splits the kitchen
    between two agent profiles that pass items over counters."""
    if difficulty not in DIFFICULTIES:
        raise GenerationError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    if dishes < 1:
        raise GenerationError("a level needs at least one dish")
    book = load_recipes(recipes_file)
    graph = _Graph({r.product: r for r in book.recipes}, frozenset(book.base_ingredients))
    # dishes of the whole book whose trees need only the allowed tools (an intermediate stays one)
    allowed = {d for d in dish_names(book.recipes, book.base_ingredients)
               if tools is None or all(t in tools for t in graph.tools(d))}
    if len(allowed) < dishes:
        raise GenerationError(f"the tools {', '.join(tools or [])} make {len(allowed)} dishes, fewer than {dishes}")
    rng = random.Random(seed)
    level_name = name or f"gen_s{seed}_d{dishes}_{difficulty}"
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    measured: list[float] = []
    for attempt in range(ATTEMPTS):
        steered = attempt < ATTEMPTS // 2
        chosen = pick_dishes(rng, book.recipes, dishes, difficulty if steered else None, book.base_ingredients,
                             allowed)
        spare = SPARE_TOOLS[difficulty] if steered else rng.randrange(3)
        kitchen = kitchen_for(book.recipes, chosen, spare)
        key = (tuple(chosen), tuple(kitchen))
        if key in seen:
            continue
        seen.add(key)
        profiles = None
        if handoffs:
            kitchen, profiles = _split(graph, chosen, kitchen)
        candidate = compile_level(level_data(level_name, chosen, kitchen, book.recipes, book.base_ingredients,
                                             agents=profiles))
        figures = measure(candidate, agents)
        if figures is None or figures.completed == 0:
            continue
        measured.append(figures.planner_cos)
        log.info("candidate %s in %s: planner CoS %.3f, bound %.3f", chosen, kitchen, figures.planner_cos,
                 figures.bound_cos)
        if in_band(figures.planner_cos, difficulty, handoffs):
            calibration = CalibrationSpec(agents=agents, taus=list(PAPER_TAUS), episodes=CALIBRATION_EPISODES,
                                          seed=CALIBRATION_SEED, planner_cos=figures.planner_cos,
                                          bound_cos=figures.bound_cos, band=band(difficulty, handoffs),
                                          candidates=len(measured))
            return level_data(level_name, chosen, kitchen, book.recipes, book.base_ingredients,
                              difficulty=difficulty, agents=profiles, calibration=calibration)
    low, high = band(difficulty, handoffs)
    seen_range = f"{min(measured):.3f}-{max(measured):.3f}" if measured else "none solvable"
    raise GenerationError(f"no level in {ATTEMPTS} attempts for seed {seed}, {dishes} dishes, {difficulty} "
                          f"(planner CoS in [{low}, {high})); measured: {seen_range}; try another seed or difficulty")


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
    if spec.calibration is not None:
        payload["calibration"] = spec.calibration.model_dump(mode="json")
    return json.dumps(payload, indent=2) + "\n"
