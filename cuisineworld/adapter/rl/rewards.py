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
- ``dense``: in the spirit of the paper's "heavily engineered dense rewards": credit for the
  recipe-tree work toward open orders, a bonus per dish served, a penalty per refused command and
  an extra penalty per expired order. A needed intermediate or dish made by an activation is paid
  from a per-order budget of exactly its tree's nodes, and not taken back when the item is used
  up, so an episode's return grows with the cooking done. A needed base ingredient is paid
  through a potential instead (held or lying in a tool, never more copies than the open orders'
  trees hold): fetching one pays, putting it back into storage or letting it go unused takes the
  credit back, so no loop of fetches pays. It changes what is optimal (weights trade dishes for
  work on the way), so compare policies by completion rate, never by this reward.
- ``dense-v1``: the dense reward the first baseline runs were trained with: fetched ingredients
  paid from the per-order budget too. It was farmed on level_4: one agent fetched needed
  ingredients and dropped them back into storage, earning each new order's fetch credit without
  ever cooking. (A version before it paid every needed activation and was farmed by chopping a
  tomato, throwing the slice away and fetching another.) Kept to reproduce that run.

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

REWARDS = ("sparse", "potential", "dense", "dense-v1")
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
    """The dense reward's terms (see the module doc); the served and expired terms add to the score's 1."""

    fetched: float = 0.1  # a base ingredient an open order's tree still needs, taken from storage
    made: float = 0.2  # an intermediate or dish an open order's tree still needs, made by an activation
    served: float = 0.5
    refused: float = 0.02
    expired: float = 0.25


class DenseReward:
    """Per-order credit for made nodes, a potential for fetched ingredients, serving bonus, penalties.

    ``fetch_budget=True`` is ``dense-v1``: fetched ingredients paid from the per-order budget
    (farmable, see the module doc) instead of the potential."""

    def __init__(self, level: Level, gamma: float = 0.99, weights: DenseWeights | None = None,
                 fetch_budget: bool = False) -> None:
        self.weights = weights or DenseWeights()
        self.gamma = gamma
        self.fetch_budget = fetch_budget
        self.sparse = SparseReward()
        self.progress = RecipeProgress(level)
        self.trees = self.progress.trees
        self._base = frozenset(item for tree in self.trees.values() for item in tree if level.recipe_for(item) is None)
        self._storages = frozenset(loc.name for loc in level.locations if loc.role == "storage")
        self._credited: dict[int, Counter[str]] = {}  # order id -> tree nodes already paid for
        self._stock = 0.0  # the fetch potential of the state before the step

    def reset(self, world: World) -> None:
        self.sparse.reset(world)
        self._credited = {}
        self._stock = 0.0 if self.fetch_budget else self.stock(world)

    def stock(self, world: World) -> float:
        """The fetch potential: needed base ingredients held or in tools, each worth `fetched`."""
        need = self.progress.demand(world)
        have = self.progress.present(world)
        return self.weights.fetched * sum(min(n, need[item]) for item, n in have.items() if item in self._base)

    def __call__(self, world: World, result: StepResult) -> float:
        w = self.weights
        done, failed = self.sparse.delta(world)
        total = (1.0 + w.served) * done - (1.0 + w.expired) * failed
        for outcome in result.outcomes:
            if not outcome.ok:
                total -= w.refused
                continue
            verb, _, rest = outcome.command.partition("_")
            if verb == "get" and self.fetch_budget:
                parts = rest.split("_")  # agentN, item, storage for a get from storage
                if len(parts) == 3 and parts[2] in self._storages and self._credit(world, parts[1]):
                    total += w.fetched
            elif verb == "activate":
                content = world.location_content(rest.rsplit("_", 1)[1])
                if len(content) == 1 and self._credit(world, content[0]):
                    total += w.made
        if not self.fetch_budget:
            now = 0.0 if world.done else self.stock(world)  # the potential of the last state is 0
            total += self.gamma * now - self._stock
            self._stock = now
        return total

    def _credit(self, world: World, item: str) -> bool:
        """Charge `item` to the most urgent open order whose tree still has an unpaid node of it."""
        orders = world.orders
        live = {o.id for o in orders}
        self._credited = {k: v for k, v in self._credited.items() if k in live}
        for order in orders:
            paid = self._credited.setdefault(order.id, Counter())
            if paid[item] < self.trees.get(order.dish, Counter())[item]:
                paid[item] += 1
                return True
        return False


def make_reward(name: str, level: Level, gamma: float = 0.99) -> RewardFn:
    """A reward by name: ``sparse``, ``potential``, ``dense`` or ``dense-v1``."""
    if name == "sparse":
        return SparseReward()
    if name == "potential":
        return PotentialReward(level, gamma)
    if name == "dense":
        return DenseReward(level, gamma)
    if name == "dense-v1":
        return DenseReward(level, gamma, fetch_budget=True)
    raise ValueError(f"unknown reward {name!r}; choose one of: {', '.join(REWARDS)}")
