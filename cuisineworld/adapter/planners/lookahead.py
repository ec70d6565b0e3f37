"""Monte-Carlo look-ahead over sampled futures: pick among a few planner variants' joint actions.

The scheduler's knobs trade things off (wait at a tool or leave, keep a late order or drop it,
finish one spare dish or hedge with shared components). Near the end of an episode one wrong
choice costs a whole order, and which one is right depends on orders not drawn yet. So in the
last `lookahead_horizon` steps, for small teams, each variant proposes a joint action; when they
disagree, every distinct action is played on copies of the world whose future dishes are redrawn
from other seeds (`World.clone(order_seed=k)`: arrival times are the real ones, the dishes are
sampled, the real generator is never read), and the variant that proposed it plays on to the
episode's end. Rolling a variant out with its own rules compares whole policies from this state
(a variant that drops a late order keeps it dropped), rather than one deviating step followed
by the default. The action with the most completed orders on average wins; ties keep the
default's action.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from cuisineworld import World
from cuisineworld.adapter.planners.demand import PlannerConfig

# Variants proposing alternative joint actions (overrides of the default configuration).
VARIANTS: tuple[dict[str, Any], ...] = (
    {"stay": 0},  # never wait at a tool for its product
    {"stay": 1},
    {"component_weight": 1.0},  # shared components as spares rank like whole dishes (a hedge)
    {"eta_share": 0.0, "admission": None},  # keep working on every order that is not clearly late
    {"spare_threshold": 0.5},  # only likely spares
)


def variant_configs(base: PlannerConfig) -> list[PlannerConfig]:
    return [dataclasses.replace(base, lookahead_team=0, **v) for v in VARIANTS]


def rollout_score(world: World, first: list[str], policy: Callable[[World], list[str]], seeds: list[int]) -> float:
    """Mean orders completed from now to the episode's end over sampled futures, playing `first`
    now and `policy` (the variant that proposed it) afterwards."""
    total = 0.0
    for seed in seeds:
        twin = world.clone(order_seed=seed)
        before = twin.counts.completed
        twin.step(first)
        while not twin.done:
            twin.step(policy(twin))
        counts = twin.counts
        total += counts.completed - before - 0.001 * counts.failed
    return total / len(seeds)
