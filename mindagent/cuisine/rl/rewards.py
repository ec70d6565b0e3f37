"""Reward options for the RL envs: the sparse score, potential-based shaping and a dense reward.

The game's own signal (orders completed minus orders failed) arrives a dozen steps after the
commands that earned it, and a new user's masked PPO learned under two dishes an episode from it
in 66k steps. Shaping gives credit for the recipe-tree work on the way:

- ``sparse``: completed - failed in the step (failures counted as the rule set counts them).
- ``potential``: sparse + gamma * phi(s') - phi(s), where phi is the recipe-tree work lying in
  the kitchen toward the open orders: every item held or in a tool (never more copies than the
  open orders need) is worth its subtree's node count, scaled so a whole dish is worth
  `PROGRESS_WEIGHT`. Potential-based shaping leaves the optimal policy unchanged (Ng, Harada and
  Russell, 1999) and cannot be farmed: taking an ingredient out again gives the credit back.
- ``dense``: in the spirit of the paper's "heavily engineered dense rewards": the potential term
  plus a bonus for each recipe node made (a successful activation whose product an open order
  needs), a bonus per dish served, a penalty per refused command and an extra penalty per expired
  order. It changes what is optimal (the weights trade dishes for intermediate work), so compare
  policies by completion rate, never by this reward.

Example::

    reward = make_reward("dense", level)
    reward.reset(world)
    r = reward(world, world.step(commands))
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from cuisineworld import Level, StepResult, World

REWARDS = ("sparse", "potential", "dense")
PROGRESS_WEIGHT = 0.5  # phi of a finished dish lying in the kitchen (a served one is worth 1)


class RewardFn(Protocol):
    def reset(self, world: World) -> None:
        """Start of an episode: remember whatever the next step's reward is measured against."""

    def __call__(self, world: World, result: StepResult) -> float:
        """The reward of the step just taken (`world` is already after it)."""


def subtree_counts(level: Level, item: str) -> Counter[str]:
    """Every node of `item`'s recipe tree (itself included, base ingredients as leaves), with multiplicity."""
    out: Counter[str] = Counter({item: 1})
    recipe = level.recipe_for(item)
    if recipe is not None:
        for ingredient in recipe.ingredients:
            out.update(subtree_counts(level, ingredient))
    return out


class SparseReward:
    """Completed minus failed orders in the step: the score itself."""

    def __init__(self) -> None:
        self._completed = 0
        self._failed = 0
        self.last: tuple[int, int] = (0, 0)  # (completed, failed) in the latest step

    def reset(self, world: World) -> None:
        counts = world.counts
        self._completed, self._failed = counts.completed, counts.failed

    def delta(self, world: World) -> tuple[int, int]:
        """(orders completed, orders failed) since the previous call."""
        counts = world.counts
        done, failed = counts.completed - self._completed, counts.failed - self._failed
        self._completed, self._failed = counts.completed, counts.failed
        self.last = (done, failed)
        return done, failed

    def __call__(self, world: World, result: StepResult) -> float:
        done, failed = self.delta(world)
        return float(done - failed)


class RecipeProgress:
    """phi(s): recipe-tree nodes lying in the kitchen toward the open orders (see the module doc)."""

    def __init__(self, level: Level, weight: float = PROGRESS_WEIGHT) -> None:
        self.level = level
        self.trees = {dish: subtree_counts(level, dish) for dish in set(level.dishes)}
        items = {item for tree in self.trees.values() for item in tree}
        self.size = {item: sum(subtree_counts(level, item).values()) for item in items}
        biggest = max(self.size[d] for d in self.trees)
        self.scale = weight / biggest
        self._tools = [j for j, loc in enumerate(level.locations) if loc.role == "tool"]

    def demand(self, world: World) -> Counter[str]:
        """How many of each item the open orders' recipe trees hold in all."""
        out: Counter[str] = Counter()
        for order in world.orders:
            out.update(self.trees.get(order.dish, ()))
        return out

    def present(self, world: World) -> Counter[str]:
        """Items held by agents or lying in tools (not storage, not served)."""
        view = world.kitchen_view()
        out: Counter[str] = Counter(h for h in view.hold if h is not None)
        for j in self._tools:
            out.update(view.content[j])
        return out

    def __call__(self, world: World) -> float:
        need = self.demand(world)
        if not need:
            return 0.0
        have = self.present(world)
        return self.scale * sum(min(n, need[item]) * self.size[item] for item, n in have.items() if item in need)


class PotentialReward:
    """sparse + gamma * phi(s') - phi(s): shaping that keeps the optimal policy."""

    def __init__(self, level: Level, gamma: float = 0.99, weight: float = PROGRESS_WEIGHT) -> None:
        self.sparse = SparseReward()
        self.phi = RecipeProgress(level, weight)
        self.gamma = gamma
        self._last = 0.0

    def reset(self, world: World) -> None:
        self.sparse.reset(world)
        self._last = self.phi(world)

    def __call__(self, world: World, result: StepResult) -> float:
        now = 0.0 if world.done else self.phi(world)  # phi of the terminal state is 0
        shaped = self.gamma * now - self._last
        self._last = now
        return self.sparse(world, result) + shaped


@dataclass(frozen=True, slots=True)
class DenseWeights:
    """The dense reward's terms (see the module doc); the served and failed terms add to the score's 1."""

    node: float = 0.1
    served: float = 0.5
    refused: float = 0.02
    expired: float = 0.5


class DenseReward:
    """The potential term plus bonuses for needed nodes made and dishes served, penalties for refusals and expiries."""

    def __init__(self, level: Level, gamma: float = 0.99, weights: DenseWeights | None = None) -> None:
        self.potential = PotentialReward(level, gamma)
        self.weights = weights or DenseWeights()
        self.level = level

    def reset(self, world: World) -> None:
        self.potential.reset(world)

    def __call__(self, world: World, result: StepResult) -> float:
        total = self.potential(world, result)
        done, failed = self.potential.sparse.last
        w = self.weights
        total += w.served * done - w.expired * failed
        refused = sum(1 for o in result.outcomes if not o.ok)
        total -= w.refused * refused
        made = [o.command.rsplit("_", 1)[1] for o in result.outcomes if o.ok and o.command.startswith("activate_")]
        if made:
            phi = self.potential.phi
            need, have = phi.demand(world), phi.present(world)
            for location in made:
                content = world.location_content(location)
                if len(content) == 1 and have[content[0]] <= need[content[0]]:
                    total += w.node
        return total


def make_reward(name: str, level: Level, gamma: float = 0.99) -> RewardFn:
    """A reward by name: ``sparse``, ``potential`` or ``dense``."""
    if name == "sparse":
        return SparseReward()
    if name == "potential":
        return PotentialReward(level, gamma)
    if name == "dense":
        return DenseReward(level, gamma)
    raise ValueError(f"unknown reward {name!r}; choose one of: {', '.join(REWARDS)}")
