"""Task interval and lifetime from the recipe graph (reference section 5, paper appendix E.4).

The arithmetic is kept in the reference's exact order of floating-point operations, because
the ceilings make the last bit matter (tau * W * 0.3, then ceil; lifetime from the unrounded value).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

LIFETIME_FACTOR = 2.5
STEP_SCALE = 0.3
STEPS_PER_NODE = 3
PAPER_TAUS: tuple[float, ...] = (1.0, 1.5, 2.0, 2.5, 3.0)


def dish_weight(dish: str, makes: Mapping[str, tuple[str, Sequence[str]]], cook_time: Mapping[str, int]) -> int:
    """W(d): waits of every non-base node met in a breadth-first walk (repeats included), plus
    three steps per distinct node of the tree (the dish and the base leaves included).

    `makes` maps a product to (tool type, ingredients); anything not in it is a base ingredient.
    """
    queue = [dish]
    seen: dict[str, None] = {}
    wait = 0
    head = 0
    while head < len(queue):
        node = queue[head]
        head += 1
        seen[node] = None
        if node not in makes:
            continue
        tool, ingredients = makes[node]
        if cook_time[tool] > 1:
            wait += cook_time[tool] - 1
        queue.extend(ingredients)
    return wait + STEPS_PER_NODE * len(seen)


def raw_interval(tau: float, weight: int) -> float:
    return tau * weight * STEP_SCALE


def dish_lifetime(tau: float, weight: int) -> int:
    return math.ceil(LIFETIME_FACTOR * raw_interval(tau, weight))


def level_interval(tau: float, weights: Sequence[int]) -> int:
    return max(math.ceil(raw_interval(tau, w)) for w in weights)
