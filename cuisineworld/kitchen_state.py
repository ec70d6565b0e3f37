"""The mutable part of a kitchen (agents and locations) and the five verbs acting on it.

Each verb checks its conditions in the reference's order, so the first failing condition is the
reason reported, and changes nothing unless every check passes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

from cuisineworld.commands import Command
from cuisineworld.level import Level
from cuisineworld.reasons import Code, Reason

if TYPE_CHECKING:
    from cuisineworld.world import _LegalTables

CountFor = Callable[[str], int]
L = TypeVar("L")


class Kitchen:
    __slots__ = ("level", "n", "at", "hold", "agent_busy", "content", "loc_busy", "gettable",
                 "_roles", "_types", "_caps", "_cook", "_watch", "_always", "_after", "_serving", "_start",
                 "_base", "_dishes", "_duplicate_refused", "_serve_needs_order", "_reach", "_starts")

    def __init__(self, level: Level, n_agents: int) -> None:
        self.level = level
        self.n = n_agents
        locs = level.locations
        self._roles = [loc.role for loc in locs]
        self._types = [loc.type for loc in locs]
        self._caps = [loc.capacity for loc in locs]
        self._cook = [loc.cook_time for loc in locs]
        self._watch = [loc.operator_busy for loc in locs]
        self._always = [loc.gettable == "always" for loc in locs]
        self._after = [loc.gettable == "after_activation" for loc in locs]
        self._serving = [i for i, loc in enumerate(locs) if loc.role == "serving"]
        self._start = self._serving[0]
        profiles = level.team_profiles(n_agents)
        # per agent, per location: may it act there (None: a homogeneous team, no check at all)
        self._reach: list[list[bool]] | None = None
        self._starts = [self._start] * n_agents
        if profiles is not None:
            self._reach = [[loc.name in p.reach for loc in locs] for p in profiles]
            # each agent starts at the first serving table it reaches, else its first location
            self._starts = [next((j for j in self._serving if r[j]), r.index(True)) for r in self._reach]
        self._base = frozenset(level.base_ingredients)
        self._dishes = frozenset(level.dishes)
        self._duplicate_refused = level.rules.duplicate_put == "refuse"
        self._serve_needs_order = not level.rules.serve_without_order
        self.clear()

    def clear(self) -> None:
        m = len(self.level.locations)
        self.at = list(self._starts)
        self.hold: list[str | None] = [None] * self.n
        self.agent_busy = [0] * self.n
        self.content: list[list[str]] = [[] for _ in range(m)]
        self.loc_busy = [0] * m
        self.gettable = [False] * m

    def copy(self) -> Kitchen:
        twin = object.__new__(Kitchen)
        for name in Kitchen.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.at = list(self.at)
        twin.hold = list(self.hold)
        twin.agent_busy = list(self.agent_busy)
        twin.content = [list(c) for c in self.content]
        twin.loc_busy = list(self.loc_busy)
        twin.gettable = list(self.gettable)
        return twin

    def is_gettable(self, j: int) -> bool:
        return self._always[j] or (self._after[j] and self.gettable[j])

    def count_down(self) -> None:
        busy = self.agent_busy
        for i in range(self.n):
            if busy[i]:
                busy[i] -= 1
        busy = self.loc_busy
        for j in range(len(busy)):
            if busy[j]:
                busy[j] -= 1

    def served_count(self, dish: str) -> int:
        return sum(self.content[j].count(dish) for j in self._serving)

    def take_served(self, dish: str) -> bool:
        for j in self._serving:
            content = self.content[j]
            if dish in content:
                content.remove(dish)
                return True
        return False

    # ------------------------------------------------------------------ verbs
    def execute(self, cmd: Command, count_for: CountFor) -> Reason | None:
        verb = cmd.verb
        a = cmd.agent
        if verb == "noop":
            return None
        location = cmd.location
        if location is None:
            # only a hand-built Command can get here (the parser gives every other verb a place)
            raise ValueError(f"{verb} needs a location: {cmd!r}")
        j = self.level.location_index[location]
        if self._reach is not None and not self._reach[a][j]:
            return Reason(Code.CANNOT_REACH, a, location, cmd.item)
        if verb == "goto":
            if self.agent_busy[a]:
                return Reason(Code.AGENT_BUSY, a, location)
            self.at[a] = j
            return None
        if verb == "get":
            return self._get(a, j, cmd.item)
        if verb == "put":
            return self._put(a, j, count_for)
        return self._activate(a, j)

    def _get(self, a: int, j: int, item: str | None) -> Reason | None:
        name = self.level.locations[j].name
        if self.at[a] != j:
            return Reason(Code.NOT_AT_LOCATION, a, name, item)
        if not (self._always[j] or (self._after[j] and self.gettable[j])):
            return Reason(Code.NOT_GETTABLE, a, name, item)
        if self.agent_busy[a]:
            return Reason(Code.AGENT_BUSY, a, name, item)
        if self.hold[a] is not None:
            return Reason(Code.HANDS_FULL, a, name, self.hold[a])
        if self.loc_busy[j]:
            return Reason(Code.LOCATION_BUSY, a, name, item)
        role = self._roles[j]
        if role == "storage":
            if item is None or item not in self._base:
                return Reason(Code.NOT_BASE_INGREDIENT, a, name, item)
            self.hold[a] = item
            return None
        content = self.content[j]
        if not content:
            return Reason(Code.LOCATION_EMPTY, a, name, item)
        if len(content) > 1 or (role == "counter" and item is not None and item != content[0]):
            return Reason(Code.NOT_GETTABLE, a, name, item)
        self.hold[a] = content[0]
        self.content[j] = []
        if self._after[j]:
            self.gettable[j] = False
        return None

    def _put(self, a: int, j: int, count_for: CountFor) -> Reason | None:
        name = self.level.locations[j].name
        held = self.hold[a]
        if self.at[a] != j:
            return Reason(Code.NOT_AT_LOCATION, a, name, held)
        role = self._roles[j]
        content = self.content[j]
        if held is not None:
            if role == "serving":
                if held not in self._dishes:
                    return Reason(Code.NOT_A_LEVEL_DISH, a, name, held)
                if self._serve_needs_order and count_for(held) <= self.served_count(held):
                    return Reason(Code.NO_OPEN_ORDER, a, name, held)
            elif role == "tool":
                inside = held in content
                if not inside and not self.level.can_extend(self._types[j], content, held):
                    return Reason(Code.WOULD_BE_WASTE, a, name, held)
                if inside and self._duplicate_refused:
                    return Reason(Code.DUPLICATE_ITEM, a, name, held)
        if self.agent_busy[a]:
            return Reason(Code.AGENT_BUSY, a, name, held)
        if held is None:
            return Reason(Code.HANDS_EMPTY, a, name)
        if self.loc_busy[j]:
            return Reason(Code.LOCATION_BUSY, a, name, held)
        cap = self._caps[j]
        # a tool takes an item already inside as a no-op; a counter is full when full
        if cap != -1 and len(content) >= cap and (role == "counter" or held not in content):
            return Reason(Code.LOCATION_FULL, a, name, held)
        if role == "serving" or role == "counter":
            content.append(held)
        elif role == "tool" and held not in content:
            content.append(held)
        self.hold[a] = None
        return None

    def _activate(self, a: int, j: int) -> Reason | None:
        name = self.level.locations[j].name
        if self.at[a] != j:
            return Reason(Code.NOT_AT_LOCATION, a, name)
        if self.agent_busy[a]:
            return Reason(Code.AGENT_BUSY, a, name)
        if self.hold[a] is not None:
            return Reason(Code.HANDS_FULL, a, name, self.hold[a])
        if self.loc_busy[j]:
            return Reason(Code.LOCATION_BUSY, a, name)
        content = self.content[j]
        if not content:
            return Reason(Code.LOCATION_EMPTY, a, name)
        product = self.level.product_of(self._types[j], content)
        if product is None:
            return Reason(Code.NO_RECIPE, a, name, "&".join(content))
        self.content[j] = [product]
        cook = self._cook[j]
        self.loc_busy[j] = cook
        if self._watch[j]:
            self.agent_busy[a] = cook
        if self._after[j]:
            self.gettable[j] = True
        return None

    # ------------------------------------------------------------ legal moves
    def legal(self, a: int, tables: _LegalTables[L], count_for: CountFor) -> list[L]:
        """The legal moves of agent `a`, spelled as `tables` spells them (strings, or other labels)."""
        out = [tables.noop[a]]
        if self.agent_busy[a]:
            return out
        out.extend(tables.goto[a])
        j = self.at[a]
        if self.loc_busy[j]:
            return out
        held = self.hold[a]
        content = self.content[j]
        role = self._roles[j]
        if held is None:
            if self._always[j] or (self._after[j] and self.gettable[j]):
                if role == "storage":
                    out.extend(tables.get_base[a][j])
                elif len(content) == 1:
                    out.append(tables.get_tool[a][j])
                    if tables.get_prefix is not None:
                        out.append(cast(L, f"{tables.get_prefix[a]}{content[0]}_{self.level.locations[j].name}"))
            if content and self.level.product_of(self._types[j], content) is not None:
                out.append(tables.activate[a][j])
            return out
        if role == "storage":
            ok = True
        elif role == "counter":
            ok = self._caps[j] == -1 or len(content) < self._caps[j]
        elif role == "serving":
            ok = held in self._dishes and (not self._serve_needs_order or count_for(held) > self.served_count(held))
        else:
            inside = held in content
            ok = (inside and not self._duplicate_refused) or (
                not inside
                and self.level.can_extend(self._types[j], content, held)
                and (self._caps[j] == -1 or len(content) < self._caps[j])
            )
        if ok:
            out.append(tables.put[a][j])
        return out
