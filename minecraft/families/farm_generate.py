"""Seeded farm-to-table tasks in graded bands, each checked solvable before it is handed out.

A band picks the dishes (easy: bread or a baked potato; medium adds pumpkin pie and cake; hard
adds beetroot soup and serves more), then lays out the farm their causal chains need: a field
per crop with as many plots as the produce needs, of which the band leaves some to regrow (their
seeds in the pantry), the pantry's buckets, bowls and coal, and the eggs the hens have laid so far.

Solvability is checked twice: the chain check (`chain_problems`: every raw material the dishes
expand to has a source: the pantry, ripe or replantable plots, the nest and the eggs laid within
the episode, cows for milk) and a play-through with the built-in planner on the pure world model
for every team size from 1 to `MAX_AGENTS` bots (`farm_planner.simulate`); the episode length is
what the slowest team needed plus a margin. Same band and seed, same task.

Example: ``generate("easy", 3).name == "farm:easy:3"``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass

from minecraft.families.farm_planner import simulate
from minecraft.families.farm_task import MAX_PLOTS, FarmTask, FieldSpec, book

MAX_AGENTS = 4
#: World ticks one dispatcher step advances the farm (the session's lockstep step).
STEP_TICKS = 40
#: Furnace cook time of the farm's server (one item in two steps).
COOK_TICKS = 80
MARGIN_STEPS = 8
ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class Band:
    menu: tuple[str, ...]
    dishes: tuple[int, int]
    #: plots per crop left to regrow (their seeds go in the pantry)
    regrow: int
    #: eggs still to be laid during the episode
    eggs_late: int
    grow_ticks: int


BANDS: dict[str, Band] = {
    "easy": Band(("bread", "baked_potato"), (1, 2), regrow=0, eggs_late=0, grow_ticks=120),
    "medium": Band(("bread", "baked_potato", "pumpkin_pie", "cake"), (1, 2), regrow=1, eggs_late=1, grow_ticks=160),
    "hard": Band(("bread", "baked_potato", "pumpkin_pie", "cake", "beetroot_soup"), (2, 3), regrow=2, eggs_late=1,
                 grow_ticks=200),
}


def raw_needs(dishes: tuple[str, ...]) -> Counter[str]:
    """What the dishes expand to down their causal chains: produce, eggs, buckets, bowls, fuel."""
    b, out = book(), Counter[str]()

    def expand(item: str, n: int) -> None:
        if item in b.recipes:
            recipe = b.recipes[item]
            for ingredient, k in recipe.needs.items():
                expand(ingredient, k * math.ceil(n / recipe.makes))
        elif (raw := next((r for r, o in b.smelting.items() if o == item), None)) is not None:
            expand(raw, n)
            out[b.fuel] += math.ceil(n / b.fuel_items)
        elif item == "milk_bucket":
            out["bucket"] += n
        else:
            out[item] += n

    for dish in dishes:
        expand(dish, 1)
    return out


def chain_problems(task: FarmTask) -> list[str]:
    """Raw materials of the task's dishes with no source on its farm (empty when all have one)."""
    b, problems = book(), []
    supply = Counter(task.pantry)
    for f in task.fields:
        crop = b.crops[f.crop]
        main = next(iter(crop.yield_))
        seeds = task.pantry.get(crop.seed, 0) if crop.seed != main else 0
        supply[main] += crop.yield_[main] * (f.ripe + min(f.plots - f.ripe, seeds))
    supply["egg"] += task.nest_eggs + task.steps * 40 // task.egg_ticks
    for item, n in sorted(raw_needs(task.dishes).items()):
        if supply[item] < n:
            problems.append(f"{item}: needs {n}, the farm can give {supply[item]}")
    return problems


def _farm(rng: random.Random, band: Band, dishes: tuple[str, ...]) -> dict[str, object]:
    b, needs = book(), raw_needs(dishes)
    fields, pantry = [], Counter[str]()
    for item, n in sorted(needs.items()):
        crop_name = b.crop_yielding(item)
        if crop_name is None:
            if item != "egg":
                pantry[item] += n
            continue
        crop = b.crops[crop_name]
        plots = min(MAX_PLOTS, math.ceil(n / crop.yield_[item]) + rng.randint(0, 1))
        regrow = min(band.regrow, plots - 1)
        fields.append(FieldSpec(crop=crop_name, plots=plots, ripe=plots - regrow))
        if regrow:
            pantry[crop.seed] += regrow
    eggs = needs.get("egg", 0)
    return {"fields": tuple(fields), "pantry": dict(sorted(pantry.items())),
            "nest_eggs": max(0, eggs - band.eggs_late), "egg_ticks": rng.choice((120, 160, 200))}


def generate(band_name: str, seed: int) -> FarmTask:
    """A solvable task of the named band; ValueError for a band that does not exist."""
    band = BANDS.get(band_name)
    if band is None:
        raise ValueError(f"no farm band {band_name!r} (bands: {', '.join(BANDS)})")
    rng = random.Random(f"farm:{band_name}:{seed}")
    for _ in range(ATTEMPTS):
        dishes = tuple(rng.choice(band.menu) for _ in range(rng.randint(*band.dishes)))
        task = FarmTask(name=f"farm:{band_name}:{seed}", dishes=dishes, grow_ticks=band.grow_ticks,
                        steps=200, **_farm(rng, band, dishes))  # type: ignore[arg-type]
        steps = solvable_steps(task)
        if steps is not None:
            return task.model_copy(update={"steps": steps + MARGIN_STEPS})
    raise ValueError(f"farm:{band_name}:{seed}: no solvable task in {ATTEMPTS} attempts")


def solvable_steps(task: FarmTask, max_steps: int | None = None) -> int | None:
    """Steps the slowest team (1 to MAX_AGENTS bots) needs with the planner, or None if one cannot."""
    if chain_problems(task):
        return None
    worst = 0
    for n in range(1, MAX_AGENTS + 1):
        steps = simulate(task, n, step_ticks=STEP_TICKS, cook_ticks=COOK_TICKS, max_steps=max_steps or task.steps)
        if steps is None:
            return None
        worst = max(worst, steps)
    return worst
