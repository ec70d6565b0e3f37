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

ACTIONS_PER_ITEM = 4  # get + put + the goto before each of them (see upper_bound for the proof)


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
        self._makeable: dict[str, bool] = {}

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
        """A lower bound on agent-steps (commands) spent to make and serve one `product`."""
        return ACTIONS_PER_ITEM * self.size(product) + self.operator_wait(product)

    def same_tool_edges(self, product: str) -> int:
        """Parent-child pairs of the tree made on the same tool type (a product put straight back)."""
        recipe = self.recipe.get(product)
        if recipe is None or product in self.base:
            return 0
        out = 0
        for i in recipe.ingredients:
            child = self.recipe.get(i)
            if child is not None and i not in self.base and child.tool == recipe.tool:
                out += 1
            out += self.same_tool_edges(i)
        return out

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
        two steps after it becomes gettable (get, goto, put), and becomes gettable `cook` steps
        after the activation, which can share the step of the last ingredient's put.
        """
        return self._put_index(product) + 1

    def _put_index(self, product: str) -> int:
        recipe = self.recipe.get(product)
        if recipe is None or product in self.base:
            return 3
        last = max(self._put_index(i) for i in recipe.ingredients)
        return last + self.cook.get(recipe.tool, 0) + 2

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
