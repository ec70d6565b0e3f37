"""`CuisinePlanner`: a replanning scheduler that dispatches N agents from the observed state.

Every step it (1) decides what to cook (`demand`: open orders by deadline, minus those that
cannot be served in time or do not fit the team's work, then spare dishes and components for
orders still to come); (2) resolves each job over the recipe tree, reusing what is already in
hands and tools and reserving tools (`resolve`); (3) hands sub-tasks to agents (`assign`).
Commands of one step run in order, so planning is repeated on a mirror of the kitchen for
agents that had nothing to do yet: after one agent puts the last ingredient, a second can
activate and a third can take a mixer's product in the same step. The joint action is finally
checked with `World.check`; anything refused becomes a noop (and is counted in
`stats["repaired"]`, which the tests keep at zero). For small teams, the last steps of an episode
compare a few planner variants by rolling each out over sampled futures (`lookahead.py`).

Example::

    planner = CuisinePlanner()
    world = World(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
    world.reset()
    while not world.done:
        world.step(planner.act_world(world))
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cuisineworld import Level, World
from cuisineworld.adapter.planners.assign import (
    Decision,
    HandDest,
    Task,
    assign,
    collect_tasks,
    render,
)
from cuisineworld.adapter.planners.demand import REAL, SPARE, Demand, Job, PlannerConfig, serve_dest, tree_products
from cuisineworld.adapter.planners.head_chef import ChefOrders, read_orders
from cuisineworld.adapter.planners.lookahead import rollout_score, variant_configs
from cuisineworld.adapter.planners.people import apply_people, people_first, people_needs
from cuisineworld.adapter.planners.recipes import RecipeBook
from cuisineworld.adapter.planners.resolve import Node, Resolver
from cuisineworld.adapter.planners.snapshot import Snapshot
from mindagent.core.domain import DomainSession

if TYPE_CHECKING:
    from cuisineworld.adapter.session import CuisineSession

log = logging.getLogger(__name__)


class CuisinePlanner:
    """A deadline-driven list scheduler over recipe trees; works on any level and team size.

    `CuisinePlanner(stay=1)` overrides one field of the default `PlannerConfig`.
    """

    name = "planner"

    def __init__(self, config: PlannerConfig | None = None, **overrides: Any) -> None:
        self.config = dataclasses.replace(config or PlannerConfig(), **overrides)
        self.demand = Demand(self.config)
        self._books: dict[int, RecipeBook] = {}
        self.stats: Counter[str] = Counter()
        self._variants: list[CuisinePlanner] | None = None
        self._base: CuisinePlanner | None = None
        self._replies: list[str] = []
        self._answered: set[str] = set()
        self._asked: set[str] = set()  # what the team needs from people now (said once while it holds)

    # ------------------------------------------------------------ Policy API
    def reset(self, session: CuisineSession | None = None) -> None:
        """Nothing carries over between episodes: the planner reads the state afresh each step."""

    def act(self, session: CuisineSession) -> list[str]:
        """The `Policy` protocol: a CuisineWorld session exposes its World as `session.world`."""
        return self.act_for(session, list(range(session.world.n_agents)))

    def act_for(self, session: CuisineSession, controlled: list[int]) -> list[str]:
        """Commands for the `controlled` agents only, following the head chef's standing instructions
        (`head_chef.py`). The other agents are people: the planner never counts on what they will do
        and plans its own commands so that, run before theirs, the engine accepts every one."""
        world = session.world
        standing = session.pending_instructions() if isinstance(session, DomainSession) else []  # a bare world holder has none
        chef = read_orders(standing, world.level.dishes, world.n_agents)
        for reply in chef.replies:
            if reply not in self._answered:
                self._answered.add(reply)
                self._replies.append(reply)
        people = [a for a in range(world.n_agents) if a not in controlled]
        if not people and chef == ChefOrders(replies=chef.replies):
            return self.act_world(world)
        if chef.stopped:
            return [f"noop_agent{a}" for a in controlled]
        given = session.people_commands() if isinstance(session, DomainSession) else []
        self._ask_people(session, world, people)
        return self._act_directed(world, controlled, chef, people_first(world, controlled, given))

    def _ask_people(self, session: CuisineSession, world: World, people: list[int]) -> None:
        """Say what the team needs from a person who holds the block (`people.people_needs`): the
        lines stand in the session's view (``needs``) while they hold, and each is replied once."""
        lines = people_needs(Snapshot.of(world, self.book(world.level)), people) if people else []
        if isinstance(session, DomainSession):
            session.team_needs = lines
        for line in lines:
            if line not in self._asked:
                self._replies.append(line)
        self._asked = set(lines)

    def take_replies(self) -> list[str]:
        """Lines for the head chef (instructions the planner cannot follow), each said once."""
        out, self._replies = self._replies, []
        return out

    def _act_directed(self, world: World, controlled: list[int], chef: ChefOrders,
                      first: Sequence[str] = ()) -> list[str]:
        """One step under instructions or with people in the team (no look-ahead: its rollouts would
        command the people's agents and ignore the instructions). `first` are the people's commands
        of this step, which run before the team's (`people.py`)."""
        snap = Snapshot.of(world, self.book(world.level))
        snap.people = frozenset(a for a in range(world.n_agents) if a not in controlled)
        claimed = apply_people(snap, world, first)
        sequence: list[str] = []
        groups: list[tuple[list[int], frozenset[str] | None]] = []
        for agent, dish in sorted(chef.assigned.items()):
            if agent in controlled:
                groups.append(([agent], frozenset([dish])))
        rest = [a for a in controlled if a not in chef.assigned]
        allowed = chef.allowed if not chef.banned else frozenset(
            d for d in world.level.dishes if chef.permits(d))
        groups.append((rest, allowed))
        for agents, dishes in groups:
            if agents:
                self.demand.allowed, self.demand.make = dishes, chef.make
                try:
                    sequence += self._plan_agents(snap, agents, claimed)
                finally:
                    self.demand.allowed, self.demand.make = None, None
        return self._validated(world, sequence, first)

    def _plan_agents(self, snap: Snapshot, agents: list[int], claimed: Counter[str] | None = None) -> list[str]:
        """The scheduler's passes for `agents` only, applied to `snap` as they are chosen; one ready
        sub-task at each place in `claimed` is left to the person heading there."""
        chosen: dict[int, Decision] = {}
        sequence: list[Decision] = []
        taken: Counter[tuple[str, str, str | None, str | None]] = Counter()
        waiting: dict[int, Decision] = {}
        for _ in range(len(agents)):
            free = [a for a in agents if a not in chosen]
            progressed = False
            for a, decision in self._plan(snap, free, taken, claimed).items():
                if decision.mode not in ("act", "goto") or not snap.legal(*decision.cmd):
                    waiting[a] = decision  # maybe possible after the others' commands: next pass
                    continue
                chosen[a] = decision
                sequence.append(decision)
                snap.apply(*decision.cmd)
                if decision.mode == "goto" and decision.task is not None:
                    taken[decision.task.signature] += 1
                progressed = progressed or decision.mode == "act"
            if not progressed or len(chosen) == len(agents):
                break
        commands = [render(d.cmd) for d in sequence]
        for a in agents:
            if a not in chosen:
                idle = a in waiting and waiting[a].mode == "idle"
                commands.append(self._rest(snap, a) if idle else f"noop_agent{a}")
        return commands

    def book(self, level: Level) -> RecipeBook:
        book = self._books.get(id(level))
        if book is None or book.level is not level:
            book = RecipeBook(level)
            self._books[id(level)] = book
        return book

    # ------------------------------------------------------------- one step
    def act_world(self, world: World) -> list[str]:
        """One command per agent, in execution order, none of which the engine refuses."""
        commands = self._act_base(world)
        config = self.config
        if (world.n_agents > config.lookahead_team or config.lookahead_samples <= 0
                or world.max_steps - world.time > config.lookahead_horizon):
            return commands
        return self._look_ahead(world, commands)

    def _look_ahead(self, world: World, default: list[str]) -> list[str]:
        """The variants' joint actions, compared by rollouts over sampled futures (lookahead.py)."""
        if self._variants is None:
            self._base = CuisinePlanner(self.config, lookahead_team=0)
            self._base._books = self._books
            self._variants = [CuisinePlanner(c) for c in variant_configs(self.config)]
            for v in self._variants:
                v._books = self._books
        base = self._base
        assert base is not None
        candidates = [default]
        policies = [base._act_base]  # each candidate is rolled out by the policy that proposed it
        for variant in self._variants:
            commands = variant._act_base(world)
            # a variant's repairs count too (in its proposals and its rollouts)
            self.stats["repaired"] += variant.stats.pop("repaired", 0)
            if sorted(commands) != sorted(default) and all(sorted(commands) != sorted(c) for c in candidates):
                candidates.append(commands)
                policies.append(variant._act_base)
        if len(candidates) == 1:
            return default
        self.stats["lookahead"] += 1
        seeds = [(world.seed * 7919 + world.episode * 1_000_003 + world.time * 1009 + i) & 0x7FFFFFFF
                 for i in range(self.config.lookahead_samples)]
        scores = [rollout_score(world, c, p, seeds) for c, p in zip(candidates, policies, strict=True)]
        best = max(range(len(candidates)), key=lambda i: (scores[i] > scores[0] + 1e-9, scores[i], -i))
        if best != 0:
            self.stats["lookahead_switch"] += 1
        return candidates[best]

    def _act_base(self, world: World) -> list[str]:
        """The scheduler's own joint action (no look-ahead): its passes over the whole team."""
        snap = Snapshot.of(world, self.book(world.level))
        return self._validated(world, self._plan_agents(snap, list(range(world.n_agents))))

    @staticmethod
    def _rest(snap: Snapshot, a: int) -> str:
        """An agent with nothing to do waits by a storage, where most work starts."""
        if snap.busy[a] or snap.hold[a] is not None or not snap.book.storages or snap.at[a] in snap.book.storages:
            return f"noop_agent{a}"
        storage = next((s for s in snap.book.storages if snap.reaches(a, s)), None)
        return f"noop_agent{a}" if storage is None else f"goto_agent{a}_{storage}"

    def _validated(self, world: World, commands: list[str], first: Sequence[str] = ()) -> list[str]:
        """`commands` with each one the engine would refuse, run after `first`, made a noop."""
        for _ in range(len(commands) + 1):
            outcomes = world.check([*first, *commands])[len(first):] if first else world.check(commands)
            bad = next((i for i, o in enumerate(outcomes) if not o.ok), None)
            if bad is None:
                return commands
            log.debug("planner command refused at step %d: %s (%s)", world.time, commands[bad], outcomes[bad].reason)
            self.stats["repaired"] += 1
            commands[bad] = f"noop_{commands[bad].split('_')[1]}"
        return commands

    # ----------------------------------------------------------------- plan
    def _plan(self, snap: Snapshot, free: list[int], taken: Counter,
              claimed: Counter[str] | None = None) -> dict[int, Decision]:
        jobs, resolver = self.demand.orders(snap)
        if self.demand.allowed is not None:  # a leftover is finished only into what the head chef allows
            book = snap.book
            resolver.wanted_products = set().union(*(tree_products(book, d) for d in self.demand.allowed))
        for job in self.demand.spares(snap, len(jobs)):
            resolver.may_queue = job.chance >= self.config.spare_queue
            job.root = resolver.resolve(job.rank, job.dish, serve_dest(snap, job.dish))
            if job.root.put_idx <= job.deadline:  # else it could not be served before the end
                jobs.append(job)
        self._inherit(resolver, jobs)
        jobs += self._cleanup(snap, resolver, jobs)
        jobs += self._clear_counters(snap, resolver, len(jobs))
        resolver.feed_queues()
        resolver.settle_queues()
        tasks: list[Task] = []
        hand_dest: HandDest = {}
        for job in jobs:
            if job.root is not None:
                collect_tasks(snap, job.root, (job.cls, job.deadline, job.rank), tasks, hand_dest)
        return assign(snap, tasks, hand_dest, free, taken, self.config.stay, self.config.preposition,
                      self.config.activate_here, claimed, self.config.keep_here)

    @staticmethod
    def _inherit(resolver: Resolver, jobs: list[Job]) -> None:
        """A spare holding a tool that an order waits for is finished with the order's urgency."""
        by_rank = {j.rank: j for j in jobs}
        for tool_type, waiting in resolver.blocked_types.items():
            blocked = by_rank.get(waiting)
            if blocked is None or blocked.cls != REAL:
                continue
            for t in resolver.book.tools_of.get(tool_type, ()):
                owner = by_rank.get(resolver.tools.get(t.name, -1))
                if owner is not None and owner.cls != REAL:
                    owner.cls, owner.deadline = REAL, blocked.deadline

    def _cleanup(self, snap: Snapshot, resolver: Resolver, jobs: list[Job]) -> list[Job]:
        """Empty unclaimed tools of a type an order waits for (leftovers of dropped jobs)."""
        by_rank = {j.rank: j for j in jobs}
        extra: list[Job] = []
        for tool_type, waiting in list(resolver.blocked_types.items()):
            blocked = by_rank.get(waiting)
            if blocked is None or blocked.cls != REAL:
                continue
            for t in snap.book.tools_of.get(tool_type, ()):
                if t.name in resolver.tools or not snap.content[t.name]:
                    continue
                rank = len(jobs) + len(extra)
                root = self._clear_tool(snap, resolver, t.name, rank)
                if root is not None:
                    extra.append(Job(root.item, REAL, blocked.deadline, rank, root))
        return extra

    @staticmethod
    def _clear_counters(snap: Snapshot, resolver: Resolver, first_rank: int) -> list[Job]:
        """Take items no job wants off the counters (served, or into a storage), last of all:
        a counter left full blocks every later hand-off through it."""
        extra: list[Job] = []
        trash = snap.book.storages[0] if snap.book.storages else None
        for counter, items in snap.shelves.items():
            if len(items) != 1 or counter in resolver.tools:
                continue
            rank = first_rank + len(extra)
            resolver.tools[counter] = rank
            node = Node(items[0], "shelf", serve_dest(snap, items[0]) or trash, rank, tool=counter)
            extra.append(Job(items[0], SPARE, snap.max_steps - 1 - snap.time, rank, node))
        return extra

    @staticmethod
    def _clear_tool(snap: Snapshot, resolver: Resolver, tool: str, rank: int) -> Node | None:
        """Take a product out (to the serving table if it may wait there, else the trash), or
        complete a raw content into the cheapest product it can still become."""
        book = snap.book
        item = snap.gettable_item(tool)
        trash = book.storages[0] if book.storages else None
        if item is not None and not snap.is_raw(tool):
            resolver.tools[tool] = rank
            node = Node(item, "tool", serve_dest(snap, item) or trash, rank, tool=tool)
            resolver.products[tool] = node
            return node
        if snap.tool_busy[tool]:
            return None
        if item is not None:  # a raw item on an always-gettable tool: take it back
            resolver.tools[tool] = rank
            return Node(item, "tool", trash, rank, tool=tool)
        content = snap.content[tool]
        wanted = resolver.wanted_products
        options = [r for r in book.level.recipes if r.tool == book.tool[tool].type and book.makeable(r.product)
                   and book.missing(r.product, content) is not None and (wanted is None or r.product in wanted)]
        if not options:
            return None
        recipe = min(options, key=lambda r: sum(book.size(i) for i in book.missing(r.product, content) or []))
        return resolver.resolve(rank, recipe.product, serve_dest(snap, recipe.product) or trash, force_tool=tool)
