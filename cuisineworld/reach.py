"""Who can carry what where, on a level whose agents each reach only part of the kitchen.

An item crosses from one agent's part to another's through a relay: a location both reach that
takes any item and gives it back (a counter), or, for the items its recipes take, a tool whose
content can always be taken out (a chopboard). The level check, the planner and the upper bound
all count hand-offs the same way, here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cuisineworld.level import Level
from cuisineworld.levels import LevelFileError


class TeamReach:
    """The reach of each agent of one team (`Level.team_profiles`) and hop counts between places."""

    def __init__(self, level: Level, n_agents: int) -> None:
        profiles = level.team_profiles(n_agents)
        names = level.location_names
        self.level = level
        self.n = n_agents
        self.reach: tuple[frozenset[str], ...] = (
            tuple(frozenset(names) for _ in range(n_agents)) if profiles is None else tuple(p.reach for p in profiles)
        )
        self.counters: tuple[str, ...] = tuple(loc.name for loc in level.locations if loc.role == "counter")
        self._hops: dict[tuple[str, tuple[str, ...]], tuple[int | None, ...]] = {}
        self._uses: dict[tuple[int, str], bool] = {}

    def uses(self, agent: int, item: str) -> bool:
        """Can `agent` advance `item` itself: put it into a tool one of whose active recipes takes
        it, or serve it (a dish)? (An item it cannot use must cross to someone else.)"""
        key = (agent, item)
        known = self._uses.get(key)
        if known is None:
            takes = {r.tool for r in self.level.recipes if item in r.ingredients}
            known = any(loc.name in self.reach[agent] and (
                loc.type in takes or (loc.role == "serving" and item in self.level.dishes))
                for loc in self.level.locations)
            self._uses[key] = known
        return known

    def reaches(self, agent: int, location: str) -> bool:
        return location in self.reach[agent]

    def relays_for(self, item: str) -> tuple[str, ...]:
        """Every place that can pass `item` between two agents (counters, and always-gettable tools
        one of whose active recipes takes it)."""
        out = list(self.counters)
        for loc in self.level.locations:
            if loc.role == "tool" and loc.gettable == "always" and any(
                    r.tool == loc.type and item in r.ingredients for r in self.level.recipes):
                out.append(loc.name)
        return tuple(out)

    def hops_to(self, dest: str, relays: Sequence[str] | None = None) -> tuple[int | None, ...]:
        """For each agent: the fewest relays an item it holds must cross to reach `dest` (None: never)."""
        relays = self.counters if relays is None else tuple(relays)
        key = (dest, relays)
        known = self._hops.get(key)
        if known is not None:
            return known
        dist: list[int | None] = [0 if dest in r else None for r in self.reach]
        frontier = [a for a in range(self.n) if dist[a] == 0]
        level = 0
        while frontier:
            level += 1
            nxt = []
            for b in frontier:
                shared = [c for c in relays if c in self.reach[b]]
                for a in range(self.n):
                    if dist[a] is None and any(c in self.reach[a] for c in shared):
                        dist[a] = level
                        nxt.append(a)
            frontier = nxt
        out = tuple(dist)
        self._hops[key] = out
        return out

    def hops(self, sources: Iterable[str], dests: Iterable[str], relays: Sequence[str] | None = None) -> int | None:
        """The fewest relays an item must cross from one of `sources` to one of `dests` (None: never)."""
        sources = list(sources)
        best: int | None = None
        for dest in dests:
            dist = self.hops_to(dest, relays)
            for a in range(self.n):
                d = dist[a]
                if d is not None and any(s in self.reach[a] for s in sources) and (best is None or d < best):
                    best = d
        return best


def item_edges(level: Level, dish: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(item, places it comes from, places it goes to) for every move in the recipe tree of `dish`."""
    by_product = {r.product: r for r in level.recipes}
    storages = tuple(loc.name for loc in level.locations if loc.role == "storage")
    servings = tuple(loc.name for loc in level.locations if loc.role == "serving")

    def of_type(tool_type: str) -> tuple[str, ...]:
        return tuple(loc.name for loc in level.locations if loc.type == tool_type)

    def source(item: str) -> tuple[str, ...]:
        recipe = by_product.get(item)
        return storages if recipe is None or item in level.base_ingredients else of_type(recipe.tool)

    out = [(dish, source(dish), servings)]
    queue = [dish]
    while queue:
        recipe = by_product.get(queue.pop(0))
        if recipe is None:
            continue
        for item in recipe.ingredients:
            out.append((item, source(item), of_type(recipe.tool)))
            if item not in level.base_ingredients:
                queue.append(item)
    return out


def check_team(level: Level) -> None:
    """Refuse a heterogeneous level whose full team cannot carry some dish's items where they go."""
    if not level.profiles:
        return
    team = TeamReach(level, len(level.profiles))
    for name in level.location_names:
        if not any(team.reaches(a, name) for a in range(team.n)):
            raise LevelFileError(level.source, "agents", f"no agent can reach {name}")
    for dish in level.dishes:
        for item, sources, dests in item_edges(level, dish):
            if not sources or not dests:
                continue  # the kitchen lacks the tool: the level loads and the dish is never servable
            if team.hops(sources, dests, team.relays_for(item)) is None:
                raise LevelFileError(
                    level.source, "agents",
                    f"the team cannot make {dish}: no agent, or chain of agents through a counter, "
                    f"carries {item} from {sources[0]} to {dests[0]}")
    if all(p.knows is not None for p in level.profiles):
        known = {r.product for p in level.profiles for r in level.known_recipes(p.knows)}
        for dish in level.dishes:
            if dish not in known:
                raise LevelFileError(level.source, "agents", f"no agent knows the recipe of {dish}")
