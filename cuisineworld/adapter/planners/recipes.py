"""What a planner needs to know about a level, computed once: recipe trees and the kitchen layout.

Both the scheduler and the upper bound read dishes as trees (a product, the tool type that makes
it, its ingredients), so the tree arithmetic lives here: which products can be made at all in this
kitchen, how many items a dish moves (`size`), the least agent work it costs (`work`) and its
shortest make-and-serve time with unlimited agents (`critical_path`).

Example::

    book = RecipeBook(load_level("level_3"))
    book.size("salmonSushi")          # 5 items: sushi, sashimi, salmon, cookedRice, rice
    book.work("salmonSushi")          # 20 agent-steps at least
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from cuisineworld import Level, Recipe
from cuisineworld.reach import TeamReach

ACTIONS_PER_ITEM = 4  # get + put + the goto before each of them (see upper_bound for the proof)
#: an item built on inside its tool skips its get, its put and the goto before the put
IN_PLACE_SAVING = 3


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    type: str
    cook: int
    capacity: int  # -1 = unlimited
    operator_busy: bool
    always_gettable: bool  # a chopboard: its single item can be taken back at any time


class RecipeBook:
    """Static facts of one compiled level, shared by every step of every episode."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self.base = frozenset(level.base_ingredients)
        self.dishes = tuple(dict.fromkeys(level.dishes))
        self.recipe: dict[str, Recipe] = {r.product: r for r in level.recipes}
        self.tools: tuple[ToolInfo, ...] = tuple(
            ToolInfo(loc.name, loc.type, loc.cook_time, loc.capacity, loc.operator_busy, loc.gettable == "always")
            for loc in level.locations
            if loc.role == "tool"
        )
        self.tool = {t.name: t for t in self.tools}
        self.tools_of: dict[str, tuple[ToolInfo, ...]] = {}
        for t in self.tools:
            self.tools_of[t.type] = self.tools_of.get(t.type, ()) + (t,)
        self.storages = tuple(loc.name for loc in level.locations if loc.role == "storage")
        self.servings = tuple(loc.name for loc in level.locations if loc.role == "serving")
        self.cook = dict(level.cook_time_by_type)
        self.counters = tuple(loc.name for loc in level.locations if loc.role == "counter")
        self._makeable: dict[str, bool] = {}
        self._teams: dict[int, TeamReach] = {}

    def team(self, n_agents: int) -> TeamReach | None:
        """Who reaches what in a team of `n_agents` (None: a homogeneous level, no hand-offs)."""
        if not self.level.heterogeneous:
            return None
        team = self._teams.get(n_agents)
        if team is None:
            team = self._teams[n_agents] = TeamReach(self.level, n_agents)
        return team

    # --------------------------------------------------------------- feasibility
    def makeable(self, product: str) -> bool:
        """True if this kitchen can produce `product` (a base ingredient needs a storage)."""
        known = self._makeable.get(product)
        if known is None:
            self._makeable[product] = False  # guards against a cyclic recipe file
            known = self._check(product)
            self._makeable[product] = known
        return known

    def _check(self, product: str) -> bool:
        if product in self.base:
            return bool(self.storages)
        recipe = self.recipe.get(product)
        if recipe is None:
            return False
        tools = self.tools_of.get(recipe.tool, ())
        if not tools:
            return False
        # a repeated ingredient can never be inside twice (the second copy vanishes or is refused)
        if len(set(recipe.ingredients)) != len(recipe.ingredients):
            return False
        if all(t.capacity != -1 and t.capacity < len(recipe.ingredients) for t in tools):
            return False
        return all(self.makeable(i) for i in recipe.ingredients)

    @cached_property
    def servable_dishes(self) -> tuple[str, ...]:
        """Dishes that can reach a serving table (level_12's frenchFries cannot: no fryer)."""
        return tuple(d for d in self.dishes if self.makeable(d) and self.servings)

    # --------------------------------------------------------------- tree sizes
    def size(self, product: str) -> int:
        """Items moved to make and serve one `product`: the nodes of its recipe tree."""
        recipe = self.recipe.get(product)
        if recipe is None or product in self.base:
            return 1
        return 1 + sum(self.size(i) for i in recipe.ingredients)

    def activations(self, product: str) -> list[str]:
        """Tool types activated to make one `product` (one entry per internal tree node)."""
        recipe = self.recipe.get(product)
        if recipe is None or product in self.base:
            return []
        out = [recipe.tool]
        for i in recipe.ingredients:
            out.extend(self.activations(i))
        return out

    def operator_wait(self, product: str) -> int:
        """Steps an operator stands idle at tools that hold their operator (beyond the activate)."""
        wait = 0
        for tool_type in self.activations(product):
            tools = self.tools_of.get(tool_type, ())
            if tools and all(t.operator_busy for t in tools):
                wait += max(0, min(t.cook for t in tools) - 1)
        return wait

    def work(self, product: str) -> int:
        """A lower bound on agent-steps (commands) spent to make and serve one `product`.

        Four commands per tree node (a get, a put and the goto before each, less one goto per
        activation, plus the activations: see `upper_bound`), less three per node that can be
        built on where it was made (`in_place_nodes`), plus the operator waits.
        """
        saved = IN_PLACE_SAVING * self.in_place_nodes(product)
        return ACTIONS_PER_ITEM * self.size(product) - saved + self.operator_wait(product)

    def in_place_nodes(self, product: str) -> int:
        """Products of the tree that need never leave their tool: the engine lets an agent put the
        parent's other ingredients onto a finished product still inside the tool and activate
        again, when the parent is made on the same tool type. At most one child per parent can
        stay (the tool holds one finished product at a time), so this counts the internal nodes
        with at least one product child of the same tool type."""
        recipe = self.recipe.get(product)
        if recipe is None or product in self.base:
            return 0
        out = 0
        same_type = False
        for i in recipe.ingredients:
            child = self.recipe.get(i)
            if child is not None and i not in self.base and child.tool == recipe.tool:
                same_type = True
            out += self.in_place_nodes(i)
        return out + (1 if same_type else 0)

    def handoffs(self, product: str, n_agents: int) -> int:
        """The fewest hand-offs one `product` needs, brought to a serving table by a team of
        `n_agents` on a heterogeneous level (0 on a homogeneous one): every item crosses at least
        the relays (`TeamReach.hops`) between a place it can come from and one it must go to.
        Each move is counted alone (its cheapest route, whichever tool instances that takes), and
        a product child that can stay inside its parent's tool (`in_place_nodes`) is not moved."""
        team = self.team(n_agents)
        if team is None or product not in self.recipe or product in self.base:
            return 0
        return self._edge(team, product, self.servings) + self._below(team, product)

    def _below(self, team: TeamReach, product: str) -> int:
        recipe = self.recipe[product]
        dests = tuple(t.name for t in self.tools_of.get(recipe.tool, ()))
        total = 0
        in_place = 0
        for i in recipe.ingredients:
            hops = self._edge(team, i, dests)
            child = self.recipe.get(i)
            if child is not None and i not in self.base:
                if child.tool == recipe.tool:
                    in_place = max(in_place, hops)
                total += self._below(team, i)
            total += hops
        return total - in_place

    def _edge(self, team: TeamReach, item: str, dests: tuple[str, ...]) -> int:
        recipe = self.recipe.get(item)
        if recipe is None or item in self.base:
            sources = self.storages
        else:
            sources = tuple(t.name for t in self.tools_of.get(recipe.tool, ()))
        return team.hops(sources, dests, team.relays_for(item)) or 0

    def tool_use(self, product: str) -> Counter[str]:
        """Cook steps each tool type spends on one `product`."""
        use: Counter[str] = Counter()
        for tool_type in self.activations(product):
            use[tool_type] += self.cook.get(tool_type, 0)
        return use

    def critical_path(self, product: str) -> int:
        """Least steps from a reset kitchen to the step whose put serves `product`, with as many
        agents as wanted: the serving put happens at step index `critical_path - 1`.

        An item is put at step p: a base item needs goto, get, goto, put (p = 3); a product is put
        two steps after it becomes ready (get, goto, put), and becomes ready `cook` steps after the
        activation, which can share the step of the last ingredient's put (another agent activates
        after the put, commands running in order). A product child made on its parent's tool type
        may stay inside its tool: the parent's other ingredients go onto it from the step it is
        ready, without the two steps of moving it (every such child is allowed this, a relaxation).
        """
        return self._ready(product) + 2 + 1

    def _ready(self, product: str) -> int:
        """Earliest step at which `product` sits finished in its tool (its tool free again)."""
        recipe = self.recipe[product]
        last = 0
        for i in recipe.ingredients:
            child = self.recipe.get(i)
            if child is None or i in self.base:
                arrive = 3
            elif child.tool == recipe.tool:
                arrive = self._ready(i)  # stays in place: the next put can come as soon as it is ready
            else:
                arrive = self._ready(i) + 2
            last = max(last, arrive)
        return last + self.cook.get(recipe.tool, 0)

    def missing(self, product: str, content: list[str]) -> list[str] | None:
        """Ingredients still to add to `content` to make `product`, or None if it cannot be."""
        recipe = self.recipe.get(product)
        if recipe is None:
            return None
        need = Counter(recipe.ingredients)
        have = Counter(content)
        if have - need:
            return None
        return list((need - have).elements())
