"""A planner's private copy of the kitchen, cheap to read and to advance by one command.

Commands of one step run in the order written, so a planner that wants "agent0 puts the last
ingredient, then agent1 activates" must see the state between the two. The engine's `check`
says yes or no but does not show that state; this mirror does, for the few fields planning
reads. It only ever receives commands the planner believes legal, and the final joint action is
still validated by `World.check`, so a divergence costs a noop, never a refused command.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cuisineworld import World
from cuisineworld.adapter.planners.recipes import RecipeBook
from cuisineworld.reach import TeamReach


@dataclass(slots=True)
class Snapshot:
    book: RecipeBook
    n: int
    time: int
    max_steps: int
    interval: int
    tau: float
    at: list[str]
    hold: list[str | None]
    busy: list[int]
    content: dict[str, list[str]]
    tool_busy: dict[str, int]
    activated: dict[str, bool]  # after-activation tools: holds a gettable product
    orders: list[tuple[str, int]]  # (dish, lifetime), most urgent first
    served: Counter[str]  # dishes waiting on serving tables
    team: TeamReach | None = None  # who reaches what (None: everyone everything)
    shelf: dict[str, list[str]] | None = None  # counters: items left by one agent for another
    people: frozenset[int] = frozenset()  # agents people play: the planner never counts on them

    @property
    def shelves(self) -> dict[str, list[str]]:
        return self.shelf if self.shelf is not None else {}

    def reaches(self, agent: int, location: str | None) -> bool:
        return self.team is None or location is None or location in self.team.reach[agent]

    @staticmethod
    def of(world: World, book: RecipeBook) -> Snapshot:
        names = [t.name for t in book.tools]
        served: Counter[str] = Counter()
        for s in book.servings:
            served.update(world.location_content(s))
        return Snapshot(
            book=book,
            n=world.n_agents,
            time=world.time,
            max_steps=world.max_steps,
            interval=world.interval,
            tau=world.tau,
            at=[world.agent_location(a) for a in range(world.n_agents)],
            hold=[world.agent_holding(a) for a in range(world.n_agents)],
            busy=[world.agent_busy(a) for a in range(world.n_agents)],
            content={t: world.location_content(t) for t in names},
            tool_busy={t: world.location_busy(t) for t in names},
            activated={t: (not book.tool[t].always_gettable) and world.location_gettable(t) for t in names},
            orders=[(o.dish, o.lifetime) for o in world.orders],
            served=served,
            team=book.team(world.n_agents),
            shelf={c: world.location_content(c) for c in book.counters} if book.counters else None,
        )

    # ------------------------------------------------------------------ reads
    def gettable_item(self, tool: str) -> str | None:
        """The item a `get` at this tool (or counter) would hand over once the tool is idle, if any."""
        if self.shelf is not None and tool in self.shelf:
            items = self.shelf[tool]
            return items[0] if len(items) == 1 else None
        content = self.content[tool]
        if len(content) != 1:
            return None
        if self.book.tool[tool].always_gettable or self.activated[tool]:
            return content[0]
        return None

    def is_raw(self, tool: str) -> bool:
        """Content not yet activated (a cooked product is not raw, even on a chopboard)."""
        if self.activated[tool]:
            return False
        content = self.content[tool]
        if not content:
            return True
        info = self.book.tool[tool]
        if info.always_gettable and len(content) == 1:
            item = content[0]
            recipe = self.book.recipe.get(item)
            return not (recipe is not None and recipe.tool == info.type)
        return True

    def can_put(self, tool: str, item: str) -> bool:
        """Would putting `item` into `tool` now be accepted and add it (not vanish)?

        A finished product takes an item only when a recipe of the tool builds on it (the engine's
        own rule, `can_extend`; none of the shipped recipes does, a chained level file may).
        """
        content = self.content[tool]
        if self.tool_busy[tool] or (not self.is_raw(tool) and not content):
            return False
        info = self.book.tool[tool]
        if item in content or (info.capacity != -1 and len(content) >= info.capacity):
            return False
        return self.book.level.can_extend(info.type, content, item)

    def open_orders(self, dish: str) -> int:
        return sum(1 for d, _ in self.orders if d == dish)

    def can_serve(self, dish: str) -> bool:
        if dish not in self.book.dishes:
            return False
        if self.book.level.rules.serve_without_order:
            return True
        return self.open_orders(dish) > self.served[dish]

    def legal(self, verb: str, agent: int, location: str | None, item: str | None) -> bool:
        """Would the engine accept this command now (after the commands applied so far)?"""
        if verb != "noop" and not self.reaches(agent, location):
            return False
        if verb in ("noop", "goto"):
            return verb == "noop" or not self.busy[agent]
        if self.busy[agent] or self.at[agent] != location or location is None:
            return False
        held = self.hold[agent]
        if verb == "get":
            if held is not None:
                return False
            if location in self.book.storages:
                return item in self.book.base
            if location in self.shelves:
                return self.gettable_item(location) is not None
            return location in self.content and not self.tool_busy[location] and self.gettable_item(location) is not None
        if verb == "put":
            if held is None:
                return False
            if location in self.content:
                return self.can_put(location, held)
            if location in self.book.servings:
                return self.can_serve(held)
            if location in self.shelves:
                return not self.shelves[location]
            return location in self.book.storages
        if verb == "activate":
            if held is not None or location not in self.content or self.tool_busy[location]:
                return False
            content = self.content[location]
            return bool(content) and self.book.level.product_of(self.book.tool[location].type, content) is not None
        return False

    # ----------------------------------------------------------------- writes
    def apply(self, verb: str, agent: int, location: str | None = None, item: str | None = None) -> None:
        """Advance the mirror by one command that is assumed to succeed."""
        if verb == "goto":
            if location is None:
                raise ValueError("goto needs a location")
            self.at[agent] = location
        elif verb == "get":
            if self.shelf is not None and location in self.shelf:
                self.hold[agent] = self.shelf[location][0]
                self.shelf[location] = []
            elif location in self.content:
                self.hold[agent] = self.content[location][0]
                self.content[location] = []
                self.activated[location] = False
            else:
                self.hold[agent] = item
        elif verb == "put":
            held = self.hold[agent]
            self.hold[agent] = None
            if self.shelf is not None and location in self.shelf and held is not None:
                self.shelf[location].append(held)
            elif location in self.content:
                if held is not None and held not in self.content[location]:
                    self.content[location].append(held)
            elif location in self.book.servings and held is not None:
                self.served[held] += 1
        elif verb == "activate" and location is not None:
            info = self.book.tool[location]
            product = self.book.level.product_of(info.type, self.content[location])
            self.content[location] = [product] if product else []
            self.tool_busy[location] = info.cook
            self.activated[location] = not info.always_gettable
            if info.operator_busy:
                self.busy[agent] = info.cook
