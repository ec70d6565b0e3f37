"""An upper bound on the completion rate any dispatcher can reach, per (level, agents, tau).

Method (a relaxation solved exactly):

1. **The order stream is fixed.** Dishes are drawn from the World's generator, which no command
   touches; the one way a dispatcher could shift the draws is the cap of 6 active orders (an
   arrival is skipped, not drawn, while 6 are open). At an arrival tick at time t, the open orders
   arrived at multiples of the interval I in [t - L, t - I] (an order with lifetime L fails at
   step a + L), so at most floor(L_max / I) are open. The engine's timing gives L <= ceil(2.5 I),
   hence at most 3 < 6: the cap never binds, and playing noops reproduces every dispatcher's
   stream (`order_stream` checks the condition and refuses to bound a level where it fails).
2. **Deadlines.** An order arriving at a with lifetime L can be completed only by a dish put on a
   serving table at some step <= a + L - 1 (reference: it expires before serving; fixed: <= a + L),
   and <= the last step of the run (`max_steps`, the run's `--steps`); an order arriving after the
   last step, or whose dish cannot be made (level_12's frenchFries: no fryer), or whose critical
   path (`RecipeBook.critical_path`, with unlimited agents, commands of one step in order, and
   products built on inside their tool) is longer than its deadline, can never complete.
3. **Agent work.** Every way the engine lets an item advance is a command: a get (from storage,
   or the single finished product of a tool), a put (into a tool, where it must extend the
   content toward a recipe; onto a serving table; into storage, which destroys it), an activate.
   A dish whose recipe tree has G nodes, K of them made by a tool, needs each node moved by a get
   and a put at another place (a goto between them) - except a product whose parent is made on
   the same tool type: the engine lets the parent's other ingredients be put onto the finished
   product still inside its tool, so such a node (at most one per parent, m in all:
   `RecipeBook.in_place_nodes`) is never moved. Before every get there is a goto, except when the
   same agent's previous command was at that place: a put there (which only saves a goto for an
   item that was got and then destroyed or lost, two commands for one) or an activation there
   (each activation is followed by at most one command of its agent, and only a moved product can
   be got from a tool: at most K - m). Counting gets, puts, gotos before puts, gotos before gets
   and activations: (G - m) + (G - m) + (G - m) + (G - K) + K = 4G - 3m commands
   (`RecipeBook.work`), plus the steps an operator is held by a tool beyond the activate.
   Wasted commands only add to this. By the end of step t the team has issued at most n(t + 1)
   commands, so a set S of orders is completable only if, for every t,
   sum of work over {i in S: deadline_i <= t} <= n(t + 1) - the cumulative-capacity form of
   1||sum U_j with all jobs released at 0 (pre-cooking is allowed: a dish can wait on a serving
   table under the reference rules, in a hand or a tool under the fixed ones), whose largest
   feasible set Moore-Hodgson's algorithm finds exactly. The same is done for each tool type
   (cook steps per activation against count x (t + 1): one tool instance cooks one content at a
   time), and the smallest of these maxima is the bound C_max on completions of the episode.
   Rule-set differences change none of this: a rejected joint action or a refused or vanishing
   put only loses commands, and serving needs an order only in the fixed set (more permissive
   in the relaxation, which allows the dish to wait anywhere).
   **Reach.** On a level whose agents each reach only part of the kitchen, an item that no
   one agent can carry from where it comes from to where it goes crosses relays (a counter, or
   an always-gettable tool that takes it): each crossing is a put on the relay, preceded by a goto
   (the agent got the item elsewhere), and a get from it by another agent, 3 more commands (the
   goto before that get may be saved, so it is not counted). `RecipeBook.handoffs` counts the
   fewest crossings per dish, each move on its own cheapest route (a relaxation), and adds 3
   per crossing to the dish's work. Two further relaxations (`reach_bound`) count what the
   team total hides: for every proper set S of agents, the commands only agents of S can issue
   (at the places only they reach) against |S|(t + 1), each solved the same way; and two steps
   per crossing on the critical path. Agents start at a serving table, or on a split kitchen at
   the first place they reach: one starting elsewhere may save the goto before its first get, so
   each such agent adds one command to its groups' capacity.
4. **Denominator.** Every order that arrived is completed, failed or still active. Under the
   reference, several orders expiring in one step raise the failure count by one only, so the
   least denominator for C completions is C plus the fewest expiry steps (and still-open orders)
   that N - C unserved orders can be packed into, the never-completable ones included. The ratio
   sum C / sum (C + penalty) grows with each episode's C (each extra completion adds 1 to the
   numerator and at most 1 to the denominator, and the ratio is <= 1), so the bound per tau is
   reached at C = C_max in every episode. CoS bound = mean over the taus.

Assumptions, checked where the bound is computed or tested: the level's location types are the
shipped ones (a get from a tool takes its single item; a tool's content advances only by puts and
activations); the 6-open-orders cap cannot bind (`CapMayBind` otherwise); orders come from the
World's own generator. `tests/cuisine/planners/test_bound_certificate.py` checks the whole
argument against an exact search over the engine's own actions (`exact.py`) on small levels.

Where it is tight: when agent work is the bottleneck and the pre-cooked stock can meet arrivals
(high tau, 3-4 agents) the bound is reached or nearly. It is loose when cooking waits leave
agents idle (one tool shared by two agents: a pipeline can only approach 4G commands per dish),
for the first order of an episode (the critical path assumes as many agents as the recipe wants),
and when several resources bind together (each is bounded alone).
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

from cuisineworld import MAX_ACTIVE_ORDERS, PAPER_TAUS, Level, World, load_level
from cuisineworld.adapter.planners import reach_bound
from cuisineworld.adapter.planners.recipes import RecipeBook
from mindagent.core.domain import RunProtocol

EPISODES = 3
#: Commands a hand-off adds: the put on the relay, the goto before it, and the other agent's get.
HANDOFF_COMMANDS = 3


class CapMayBind(ValueError):
    """The level's lifetimes let 6 orders be open at once, so the order stream could depend on play."""


@dataclass(frozen=True, slots=True)
class OrderSlot:
    arrival: int
    dish: str
    lifetime: int

    def expiry(self) -> int:
        """The step at which the order fails if not served."""
        return self.arrival + self.lifetime


@dataclass(frozen=True, slots=True)
class TauBound:
    tau: float
    completed: int  # most completions over the episodes
    denominator: int  # least completed + failed + active for that many completions
    orders: int

    @property
    def rate(self) -> float:
        return self.completed / self.denominator if self.denominator else 1.0


@dataclass(slots=True)
class CellBound:
    level: str
    agents: int
    taus: list[TauBound] = field(default_factory=list)

    @property
    def cos(self) -> float:
        return sum(t.rate for t in self.taus) / len(self.taus) if self.taus else 0.0


def cap_can_bind(level: Level, tau: float) -> bool:
    interval = level.interval(tau)
    return max(level.lifetimes(tau).values()) // interval >= MAX_ACTIVE_ORDERS


def order_stream(level: Level, tau: float, seed: int = 0, episodes: int = EPISODES,
                 max_steps: int | None = None) -> list[list[OrderSlot]]:
    """Every order of every episode, as any dispatcher will see them (see the module docstring)."""
    if cap_can_bind(level, tau):
        raise CapMayBind(f"{level.name} at tau {tau}: lifetimes allow {MAX_ACTIVE_ORDERS} open orders")
    world = World(level, n_agents=1, tau=tau, seed=seed, max_steps=max_steps)
    out: list[list[OrderSlot]] = []
    for _ in range(episodes):
        world.reset()
        slots = [OrderSlot(0, o.dish, o.lifetime) for o in world.orders]
        while not world.done:
            result = world.step(["noop_agent0"])
            slots.extend(OrderSlot(world.time, d, world.lifetimes[d]) for d in result.arrived)
        out.append(slots)
    return out


def _deadline(slot: OrderSlot, level: Level, last_step: int) -> int:
    grace = 0 if level.rules.expire_before_serve else 1
    return min(slot.expiry() - 1 + grace, last_step)


def _completable(slot: OrderSlot, book: RecipeBook, last_step: int, agents: int) -> bool:
    if slot.arrival > last_step or slot.dish not in book.servable_dishes:
        return False
    return reach_bound.critical_path(book, slot.dish, agents) - 1 <= _deadline(slot, book.level, last_step)


def most_on_time(jobs: Sequence[tuple[int, int]], capacity_per_step: int, extra: int = 0) -> int:
    """Moore-Hodgson: the largest set of (deadline step, work) jobs with, for every t, the work
    of jobs due by t at most capacity_per_step * (t + 1) + extra."""
    heap: list[int] = []
    total = 0
    for deadline, work in sorted(jobs):
        heapq.heappush(heap, -work)
        total += work
        if total > capacity_per_step * (deadline + 1) + extra:
            total += heapq.heappop(heap)
    return len(heap)


def max_completions(slots: Sequence[OrderSlot], book: RecipeBook, agents: int, last_step: int) -> int:
    """C_max of one episode: the least of the agent-work and per-tool-type relaxations."""
    level = book.level
    feasible = [s for s in slots if _completable(s, book, last_step, agents)]
    due = [(_deadline(s, level, last_step), s.dish) for s in feasible]
    team = frozenset(range(agents))
    credit = reach_bound.start_credit(book, agents, team) if book.team(agents) is not None else 0
    best = most_on_time([(d, book.work(dish) + HANDOFF_COMMANDS * book.handoffs(dish, agents)) for d, dish in due],
                        agents, credit)
    if book.team(agents) is not None:
        forced = {dish: reach_bound.forced_work(book, dish, agents) for dish in dict.fromkeys(d for _, d in due)}
        for group in reach_bound.proper_groups(agents):
            jobs = [(d, reach_bound.group_work(forced[dish], group)) for d, dish in due]
            if any(w for _, w in jobs):
                best = min(best, most_on_time(jobs, len(group), reach_bound.start_credit(book, agents, group)))
    for tool_type, tools in book.tools_of.items():
        cook = book.cook.get(tool_type, 0)
        if cook == 0:
            continue
        jobs = [(d, book.tool_use(dish)[tool_type]) for d, dish in due]
        best = min(best, most_on_time(jobs, len(tools)) if any(w for _, w in jobs) else best)
    return best


def least_penalty(slots: Sequence[OrderSlot], book: RecipeBook, completed: int, last_step: int,
                  agents: int) -> int:
    """Fewest failed + active counts left by `len(slots) - completed` unserved orders."""
    per_step = book.level.rules.count_failures_per_step
    groups: dict[object, list[OrderSlot]] = {}
    for i, s in enumerate(slots):
        key: object = s.expiry() if per_step and s.expiry() <= last_step else ("open", i)
        groups.setdefault(key, []).append(s)
    unserved = len(slots) - completed
    forced = {k for k, g in groups.items() if any(not _completable(s, book, last_step, agents) for s in g)}
    penalty = len(forced)
    covered = sum(len(groups[k]) for k in forced)
    for size in sorted((len(g) for k, g in groups.items() if k not in forced), reverse=True):
        if covered >= unserved:
            break
        covered += size
        penalty += 1
    return penalty


def tau_bound(level: Level, agents: int, tau: float, seed: int = 0, episodes: int = EPISODES,
              max_steps: int | None = None) -> TauBound:
    book = RecipeBook(level)
    last_step = (level.max_steps if max_steps is None else max_steps) - 1
    completed = denominator = orders = 0
    for slots in order_stream(level, tau, seed, episodes, max_steps):
        c = max_completions(slots, book, agents, last_step)
        completed += c
        denominator += c + least_penalty(slots, book, c, last_step, agents)
        orders += len(slots)
    return TauBound(tau, completed, denominator, orders)


def upper_bound(level: str | Level, agents: int, rules: str = "reference", taus: Sequence[float] = PAPER_TAUS,
                seed: int = 0, episodes: int = EPISODES, max_steps: int | None = None) -> CellBound:
    """The bound on CoS (reference denominator) for one cell of the paper's protocol.

    Example::

        upper_bound("level_0", agents=2).cos     # no dispatcher can score more
    """
    compiled = level if isinstance(level, Level) else load_level(level, rules)
    cell = CellBound(compiled.name, agents)
    for tau in taus:
        cell.taus.append(tau_bound(compiled, agents, tau, seed, episodes, max_steps))
    return cell


@functools.lru_cache(maxsize=1024)
def cos_upper_bound(level: str, agents: int, rules: str = "reference", seed: int = 0, episodes: int = EPISODES,
                    steps: int | None = None, taus: tuple[float, ...] = PAPER_TAUS) -> float:
    """The CoS bound of a shipped level (or level file) for one run's protocol, cached:
    ``cos_upper_bound("level_3", 2)`` is the paper's protocol on seed 0; ``seed=11, steps=30``
    bounds a run made with ``--seed 11 --steps 30`` (a run cut short has fewer orders)."""
    return upper_bound(level, agents, rules=rules, taus=taus, seed=seed, episodes=episodes, max_steps=steps).cos


def run_bound(level: str, agents: int, protocol: RunProtocol) -> float:
    """`cos_upper_bound` for the protocol a sweep was run with (what `eval --compare` prints)."""
    compiled = load_level(level, protocol.rules)
    steps = None if protocol.steps is None else min(protocol.steps, compiled.max_steps)
    return cos_upper_bound(level, agents, protocol.rules, protocol.seed, protocol.episodes, steps, tuple(protocol.taus))
