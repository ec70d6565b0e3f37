"""What to cook: open orders worth serving, and spare dishes worth making ahead.

Orders come first, in deadline order. An order is dropped (for this step) when it cannot be
served in time anyway, judged by its critical path and by its remaining work shared by the team;
what it had claimed goes back, so the next order of the same dish inherits the half-made items.
When the open orders together need more commands before their deadlines than the team gives
(at `admission` efficiency), Moore-Hodgson keeps the largest set that fits and the rest wait
behind it: in overload, finishing some orders beats starting all of them.

Spare jobs use the rest of the team's time. The reference lets a dish wait on the serving table
for a later order, and orders are drawn uniformly from the level's dish list, so a spare dish is
worth the chance that an order for it arrives before the episode ends (binomial over the
arrivals left); intermediate products shared by several dishes (cooked rice, sashimi) are
cheaper spares that shorten whatever order comes next. The planner never peeks at the order
generator: only the dish list and the arrival rhythm are used.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from dataclasses import dataclass

from cuisineworld.adapter.planners.recipes import ACTIONS_PER_ITEM, RecipeBook
from cuisineworld.adapter.planners.resolve import Node, Resolver
from cuisineworld.adapter.planners.snapshot import Snapshot

REAL, SPARE = 0, 1  # job classes: sub-tasks of class 0 always rank before those of class 1


@dataclass(frozen=True, slots=True)
class PlannerConfig:
    """The scheduler's knobs (defaults chosen on the paper sweep, see benchmarks/planner_sweep.py)."""

    spare_threshold: float = 0.3  # least chance that a spare dish or component gets ordered in time
    spare_cap: int = 8  # spare jobs planned per step
    spare_components: bool = True  # also keep shared intermediate products ready
    component_weight: float = 0.3  # a component ranks below a spare dish of the same chance
    # the last arrival leaves too few steps to make a dish from scratch but enough to finish it
    # from ready ingredients: those ingredients rank this far above a spare dish of the same chance
    window_weight: float = 2.0
    spare_queue: float = 0.9  # a spare this likely may queue behind a busy tool
    admission: float | None = 0.9  # share of commands assumed productive when admitting orders
    eta_share: float = 0.8  # an order is late when eta_share * its remaining work / team > deadline
    stay: int = 2  # steps an agent at a tool waits for its product rather than leaving
    preposition: int = 2  # steps ahead an idle agent walks to a tool that will soon be ready
    activate_here: bool = True  # an agent standing at a tool that is ready to start starts it first
    # an empty agent takes the ready item of an order it stands at unless another item of that
    # order is more than this many steps more urgent (one step: the goto it saves); -1 disables it
    keep_here: int = 1
    # Monte-Carlo look-ahead (see lookahead.py): teams up to this size compare the joint actions
    # of a few planner variants by rolling each out over sampled futures (0 disables it)
    lookahead_team: int = 2
    lookahead_samples: int = 3  # sampled order futures per candidate (common to all candidates)
    lookahead_horizon: int = 35  # rollouts run to the episode's end, so only its last steps are searched


@dataclass(slots=True)
class Job:
    dish: str
    cls: int
    deadline: int  # last step index (from now) whose put still serves it
    rank: int
    root: Node | None = None
    chance: float = 1.0  # for a spare: the chance it will be ordered in time


def remaining_work(node: Node) -> int:
    """Commands still needed to deliver `node` (with everything below it) to its destination."""
    if node.kind == "hand":
        work = 1 if node.put_idx == 0 else 2
    elif node.kind in ("storage", "tool", "shelf"):
        work = 4
    else:
        work = 6  # deliver the product, plus the activation and the walk to it
    return work + sum(remaining_work(c) for c in node.children)


def order_probability(count: int, arrivals: int, p: float) -> float:
    """P(at least `count` of `arrivals` orders are for a dish drawn with probability p)."""
    if count <= 0:
        return 1.0
    if count > arrivals or p <= 0.0:
        return 0.0
    below = sum(math.comb(arrivals, i) * p**i * (1 - p) ** (arrivals - i) for i in range(count))
    return max(0.0, 1.0 - below)


def serve_dest(snap: Snapshot, dish: str) -> str | None:
    """Where a finished dish goes: a serving table, if the rules let it be put there now."""
    if not snap.book.servings or not snap.can_serve(dish):
        return None
    return snap.book.servings[0]


class Demand:
    def __init__(self, config: PlannerConfig) -> None:
        self.config = config
        #: Dishes the head chef allows (None: all); `make` goes first among the spares.
        self.allowed: frozenset[str] | None = None
        self.make: str | None = None

    def dishes(self, book: RecipeBook) -> tuple[str, ...]:
        """The dishes worth cooking: the servable ones the head chef has not ruled out."""
        if self.allowed is None:
            return book.servable_dishes
        return tuple(d for d in book.servable_dishes if d in self.allowed)

    # ------------------------------------------------------------------ orders
    def orders(self, snap: Snapshot) -> tuple[list[Job], Resolver]:
        """Resolved order jobs worth serving, most urgent first, and the resolver holding their claims."""
        jobs = self._open_orders(snap)
        resolver, kept = self._resolve_in_time(snap, jobs)
        if self.config.admission is None or len(kept) < 2:
            return kept, resolver
        admitted = self._admit(snap, kept)
        if len(admitted) == len(kept):
            return kept, resolver
        resolver, kept = self._resolve_in_time(snap, admitted)
        deferred = [j for j in jobs if j not in admitted]
        for i, job in enumerate(deferred):
            job.cls, job.rank = SPARE, len(kept) + i
            if self._resolve_one(snap, resolver, job):
                kept.append(job)
        return kept, resolver

    def _open_orders(self, snap: Snapshot) -> list[Job]:
        book = snap.book
        covered = Counter(snap.served)
        last = snap.max_steps - 1 - snap.time
        grace = 0 if book.level.rules.expire_before_serve else 1
        jobs: list[Job] = []
        for dish, life in snap.orders:
            if covered[dish] > 0:
                covered[dish] -= 1
                continue
            if dish in self.dishes(book):
                jobs.append(Job(dish, REAL, min(life - 1 + grace, last), len(jobs)))
        jobs.sort(key=lambda j: (j.deadline, j.rank))
        for i, job in enumerate(jobs):
            job.rank = i
        return jobs

    def late(self, snap: Snapshot, job: Job) -> bool:
        """It cannot be served in time: its critical path, or its work shared by the team, ends
        after its deadline."""
        root = job.root
        if root is None or root.put_idx > job.deadline:
            return True
        share = self.config.eta_share
        return share > 0 and share * remaining_work(root) / snap.n > job.deadline + 1

    def _resolve_one(self, snap: Snapshot, resolver: Resolver, job: Job) -> bool:
        saved = resolver.save()
        job.root = resolver.resolve(job.rank, job.dish, serve_dest(snap, job.dish))
        if self.late(snap, job):
            resolver.restore(saved)
            return False
        return True

    def _resolve_in_time(self, snap: Snapshot, jobs: list[Job]) -> tuple[Resolver, list[Job]]:
        resolver = Resolver(snap)
        return resolver, [job for job in jobs if self._resolve_one(snap, resolver, job)]

    def _admit(self, snap: Snapshot, jobs: list[Job]) -> list[Job]:
        """Moore-Hodgson: the most orders whose remaining work fits before each deadline."""
        assert self.config.admission is not None
        heap: list[tuple[int, int]] = []
        total = 0
        for job in sorted(jobs, key=lambda j: (j.deadline, j.rank)):
            work = remaining_work(job.root) if job.root is not None else 0
            heapq.heappush(heap, (-work, job.rank))
            total += work
            if total > self.config.admission * snap.n * (job.deadline + 1):
                dropped, _ = heapq.heappop(heap)
                total += dropped
        ranks = {rank for _, rank in heap}
        return [j for j in jobs if j.rank in ranks]

    # ------------------------------------------------------------------ spares
    def spares(self, snap: Snapshot, first_rank: int) -> list[Job]:
        """Spare dishes and components worth making now, most likely to be needed first."""
        book = snap.book
        last_time = snap.max_steps - 1
        interval = max(1, snap.interval)
        arrivals = max(0, last_time // interval - snap.time // interval)
        if arrivals == 0 or not self.dishes(book):
            return []
        stock = Counter(snap.served)
        for dish, _ in snap.orders:
            if stock[dish] > 0:
                stock[dish] -= 1
        weights = Counter(book.level.dishes)
        total = sum(weights.values())
        config = self.config
        scored: list[tuple[float, str]] = []
        for dish in self.dishes(book):
            for extra in range(config.spare_cap):
                chance = order_probability(stock[dish] + extra + 1, arrivals, weights[dish] / total)
                if chance < config.spare_threshold:
                    break
                scored.append((chance, dish))
        if config.spare_components:
            scored += self._components(snap, arrivals, weights, total, self._window_parts(snap, arrivals))
        if self.make is not None and self.make in self.dishes(book):
            scored = [(2.0, self.make), *scored]  # the head chef's "make X": first, whatever the odds
        scored.sort(key=lambda x: -x[0])
        horizon = last_time - snap.time
        return [Job(item, SPARE, horizon, first_rank + i, chance=chance)
                for i, (chance, item) in enumerate(scored[: config.spare_cap])]

    def _window_parts(self, snap: Snapshot, arrivals: int) -> set[str]:
        """Direct ingredients (products) of the dishes that, ordered at the episode's last
        arrival, cannot be made from scratch in the steps left but can be finished from them."""
        book = snap.book
        if arrivals != 1 or self.config.window_weight <= 0 or snap.n > len(self.dishes(book)):
            return set()  # a team with an agent per candidate dish makes whole spares instead
        interval = max(1, snap.interval)
        last_time = snap.max_steps - 1
        left = last_time - (last_time // interval) * interval + 1  # steps from that arrival on
        parts: set[str] = set()
        for dish in self.dishes(book):
            whole = max(book.critical_path(dish), -(-book.work(dish) // snap.n))
            if left >= whole:
                continue
            recipe = book.recipe[dish]
            finish_put = 3 + book.cook.get(recipe.tool, 0) + 2
            finish_work = ACTIONS_PER_ITEM * (len(recipe.ingredients) + 1)
            if left >= max(finish_put + 1, -(-finish_work // snap.n)):
                parts |= {i for i in recipe.ingredients if i not in book.base and i in book.recipe}
        return parts

    def _components(self, snap: Snapshot, arrivals: int, weights: Counter[str], total: int,
                    window: set[str] | frozenset[str] = frozenset()) -> list[tuple[float, str]]:
        book = snap.book
        users: Counter[str] = Counter()
        for dish in self.dishes(book):
            for product in sorted(tree_products(book, dish) - {dish}):  # sorted: no hash order
                users[product] += weights[dish]
        stock: Counter[str] = Counter(h for h in snap.hold if h is not None)
        for t in book.tools:
            item = snap.gettable_item(t.name)
            if item is not None and not snap.is_raw(t.name):
                stock[item] += 1
        out = []
        for product, weight in users.items():
            chance = order_probability(stock[product] + 1, arrivals, weight / total)
            if chance >= self.config.spare_threshold:
                scale = self.config.window_weight if product in window else self.config.component_weight
                out.append((chance * scale, product))
        return out


def tree_products(book: RecipeBook, product: str) -> set[str]:
    """Every non-base product in the recipe tree of `product`, itself included."""
    recipe = book.recipe.get(product)
    if recipe is None or product in book.base:
        return set()
    out = {product}
    for i in recipe.ingredients:
        out |= tree_products(book, i)
    return out
